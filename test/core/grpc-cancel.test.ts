/**
 * A gRPC client that cancels calls right after sending them (what @grpc/grpc-js sends is RST_STREAM CANCEL,
 * a Rapid Reset from the server's side) is no failure: its other calls on the same connection succeed, and
 * each cancelled call is logged and counted Canceled at info, never `rpc failed` or Internal. Today's soak:
 * nghttp2's own Rapid Reset guard (1000 resets, then 33 a second) closed the connection with GOAWAY
 * INTERNAL_ERROR every ~1000 cancels, failing the calls in flight on it; and a cancelled call whose database
 * work the pool refused (call-scope.ts) was logged `rpc failed` at error, its refusal wrapped by MikroORM.
 * A connection that only resets streams is still cut off (GOAWAY), past the line ServerLimits draws.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http2 from 'node:http2';
import { ConnectError } from '@connectrpc/connect';
import * as grpc from '@grpc/grpc-js';
import { DriverException } from '@mikro-orm/core';
import type { RunningServer } from '../../services/shared/server.ts';
import { DEFAULT_SERVER_LIMITS } from '../../services/shared/server-limits.ts';
import { capturingLogger } from '../support/captured-log.ts';
import { loadProto, unary } from '../support/grpc-js.ts';
import { until } from '../support/processes.ts';
import { startHealthServer } from '../support/rpc-server.ts';
import { type Stack, startStack } from '../support/stack.ts';

/** Calls each worker makes: well past nghttp2's 1000 resets, so the old guard closed the connection. */
const CALLS = 1500;

interface Line {
  level: number;
  msg: string;
  procedure?: string;
  code?: string;
}

describe('core over gRPC: a client cancelling calls it just sent', function () {
  this.timeout(240_000);
  let stack: Stack;
  let scans: any;
  let closed = false;

  before(async () => {
    stack = await startStack('grpc-cancel');
    const { skinmatch } = loadProto('skinmatch/v1/scan.proto');
    scans = new skinmatch.v1.ScanService(new URL(stack.coreUrl).host, grpc.credentials.createInsecure());
  });
  after(async () => {
    scans?.close();
    if (!closed) await stack?.close();
  });

  it('its other calls on the connection succeed, and the cancelled ones are logged Canceled', async () => {
    // A watch held open on the same connection all along: a closed connection would end it.
    const started: any = await unary(scans, 'startScan', { source: 'watched' });
    const watch = scans.watchScan({ runId: started.runId, accessToken: started.accessToken });
    let watchError: grpc.ServiceError | undefined;
    watch.on('error', (err: grpc.ServiceError) => {
      watchError ??= err;
    });
    let watched = 0;
    watch.on('data', () => watched++);
    await until('the watch has its first message', () => watched > 0);

    const failures: string[] = [];
    let cancelled = 0;
    const cancelling = async () => {
      for (let i = 0; i < CALLS; i++) {
        await new Promise<void>((done) => {
          const call = scans.startScan({ source: 'cancelled' }, () => done());
          setImmediate(() => call.cancel());
        });
        cancelled++;
      }
    };
    const calling = async () => {
      for (let i = 0; i < CALLS; i++) {
        await unary(scans, 'startScan', { source: 'kept' }).catch((err: Error) => failures.push(err.message));
      }
    };
    await Promise.all([cancelling(), cancelling(), calling(), calling()]);
    assert.equal(cancelled, 2 * CALLS);
    assert.deepEqual(failures, [], 'every call not cancelled succeeded');
    assert.equal(watchError, undefined, 'the watch on the same connection is still open');
    watch.cancel();

    closed = true;
    await stack.close(); // every call ended and every line written
    const lines: Line[] = readFileSync(stack.logFile, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"name":"core"'))
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      lines.filter((l) => l.level >= 50).map((l) => l.msg),
      [],
      'no error line (rpc failed)',
    );
    const codes = new Map<string, number>();
    for (const l of lines) {
      if (l.msg === 'rpc' && l.procedure === 'skinmatch.v1.ScanService/StartScan')
        codes.set(l.code!, (codes.get(l.code!) ?? 0) + 1);
    }
    assert.equal(codes.get('ok'), 2 * CALLS + 1, 'every call kept is logged ok');
    // A call cancelled before grpc-js sent it never reaches core; all the others are Canceled.
    assert.ok((codes.get('Canceled') ?? 0) > CALLS, `most cancels reached core: ${[...codes]}`);
    assert.deepEqual([...codes.keys()].sort(), ['Canceled', 'ok'], 'no Internal, no Unavailable');
  });
});

describe('a call cancelled while its work runs, the work failing because of it', () => {
  const { logger, lines } = capturingLogger<{ level: number; msg: string; code?: string }>();
  let server: RunningServer;
  let entered: () => void;
  before(async () => {
    server = await startHealthServer(
      {
        // As core's database work does once its client cancelled: the pool refuses the abandoned call
        // (call-scope.ts), and MikroORM wraps that refusal in an error of its own.
        check: async (_req, ctx) => {
          entered();
          await new Promise((aborted) => ctx.signal.addEventListener('abort', aborted, { once: true }));
          throw new DriverException(ConnectError.from(ctx.signal.reason));
        },
      },
      { logger },
    );
  });
  after(() => server?.close(1000));

  it('is logged Canceled, with no error line', async () => {
    const { grpc: pkg } = loadProto('grpc/health/v1/health.proto');
    const health = new pkg.health.v1.Health(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
    try {
      const running = new Promise<void>((done) => {
        entered = done;
      });
      const call = health.check({}, () => {});
      await running;
      call.cancel();
      await until('the call logged', () => lines.some((l) => l.msg === 'rpc'));
    } finally {
      health.close();
    }
    // The old log: 'rpc failed' at error, with the wrapped refusal's stack.
    assert.deepEqual(
      lines.filter((l) => l.level >= 40).map((l) => l.msg),
      [],
    );
    // Health calls are logged at debug (probes'), any other service's at info (call-log-level.test.ts).
    assert.deepEqual(
      lines.filter((l) => l.msg === 'rpc').map((l) => l.code),
      ['Canceled'],
    );
  });
});

describe('a connection that only resets streams (Rapid Reset) is still cut off', () => {
  // The line as configured (ServerLimits), small here: the defaults are 10 000 at once and 1000 a second.
  const limits = { ...DEFAULT_SERVER_LIMITS, resetBurst: 100, resetsPerSecond: 1 };
  let server: RunningServer;
  before(async () => {
    server = await startHealthServer({}, { limits });
  });
  after(() => server?.close(1000));

  it('is sent GOAWAY and closed past its resets burst, not before', async () => {
    const session = http2.connect(`http://127.0.0.1:${server.port}`);
    session.on('error', () => {});
    let goaway: number | undefined;
    session.on('goaway', (code) => {
      goaway ??= code;
    });
    let reset = 0;
    // Bounded: at most 2000 resets (nghttp2's own line was 1000), stopping at the GOAWAY.
    while (reset < 2000 && goaway === undefined && !session.destroyed) {
      const stream = session.request({
        ':method': 'POST',
        ':path': '/grpc.health.v1.Health/Check',
        'content-type': 'application/grpc+proto',
        te: 'trailers',
      });
      stream.on('error', () => {});
      stream.end(Buffer.alloc(5));
      stream.close(http2.constants.NGHTTP2_CANCEL);
      if (++reset % 10 === 0) await new Promise((done) => setImmediate(done));
    }
    await until('the server has closed the connection', () => goaway !== undefined || session.destroyed);
    session.destroy();
    assert.equal(goaway, http2.constants.NGHTTP2_INTERNAL_ERROR);
    assert.ok(reset > limits.resetBurst && reset < 1000, `GOAWAY after ${reset} resets`);
  });
});
