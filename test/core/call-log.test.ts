/**
 * The call log (and the RPC metrics it feeds) records a call its client abandoned as what the client saw,
 * not as "ok": an answer given after the call's deadline is DeadlineExceeded, a stream the client cancelled
 * or a stream whose client was killed is Canceled (the probe found 1000 streams of a killed client logged
 * "ok", and a GetScan answered 23 s after its 1 s deadline "ok"). Real @grpc/grpc-js clients, one of them
 * in a process of its own that is killed.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import http2 from 'node:http2';
import { setTimeout as sleep } from 'node:timers/promises';
import { create } from '@bufbuild/protobuf';
import * as grpc from '@grpc/grpc-js';
import { HealthCheckResponseSchema } from '../../gen/grpc/health/v1/health_pb.ts';
import type { RunningServer } from '../../services/shared/server.ts';
import { capturingLogger } from '../support/captured-log.ts';
import { loadProto } from '../support/grpc-js.ts';
import { until } from '../support/processes.ts';
import { startHealthServer } from '../support/rpc-server.ts';

/** A client that opens `count` Watch streams, says so, and waits to be killed. */
const WATCHING_CLIENT = `
import * as grpc from '@grpc/grpc-js';
import * as loader from '@grpc/proto-loader';
const pkg = grpc.loadPackageDefinition(loader.loadSync('grpc/health/v1/health.proto', {
  includeDirs: ['third_party/proto', 'proto'],
}));
const client = new pkg.grpc.health.v1.Health(process.argv[1], grpc.credentials.createInsecure());
let open = 0;
for (let i = 0; i < Number(process.argv[2]); i++) {
  const call = client.watch({ service: '' });
  call.once('data', () => { if (++open === Number(process.argv[2])) console.log('open'); });
  call.on('error', () => {});
}
`;

describe('the call log records calls their clients abandoned as Canceled or DeadlineExceeded', function () {
  this.timeout(60_000);
  let server: RunningServer;
  let target: string;
  const { logger, lines } = capturingLogger<{ msg: string; code: string; procedure: string }>();
  const codes = (method: string) =>
    lines.filter((l) => l.msg === 'rpc' && l.procedure.endsWith(`/${method}`)).map((l) => l.code);

  before(async () => {
    server = await startHealthServer(
      {
        // Answers after 600 ms, whatever the deadline: as a handler that ignores its signal.
        check: async () => {
          await sleep(600);
          return create(HealthCheckResponseSchema, { status: 1 });
        },
        // Ends normally once the call's signal aborts, as grpc.health.v1's Watch did.
        async *watch(_req, ctx) {
          yield create(HealthCheckResponseSchema, { status: 1 });
          while (!ctx.signal.aborted) await sleep(20);
        },
      },
      { logger },
    );
    target = `127.0.0.1:${server.port}`;
  });
  after(() => server?.close(1000));

  it('an answer given after the deadline is DeadlineExceeded; one in time is ok', async () => {
    // A client that sends a deadline and waits past it (grpc-js would also cancel at its own deadline, and
    // whichever timer fires first, the server's or the client's, would decide between the two codes).
    const session = http2.connect(`http://${target}`);
    try {
      const stream = session.request({
        ':method': 'POST',
        ':path': '/grpc.health.v1.Health/Check',
        // Whatever a client writes here is not the procedure's name in the log.
        ':authority': 'anything.example:1',
        'content-type': 'application/grpc+proto',
        te: 'trailers',
        'grpc-timeout': '200m',
      });
      stream.end(Buffer.alloc(5)); // one empty message
      // connect-node writes the handler's late answer (grpc-status 0), which a real client no longer reads.
      await new Promise((resolve) => {
        stream.once('close', resolve);
        stream.resume();
      });
    } finally {
      session.close();
    }
    const { grpc: pkg } = loadProto('grpc/health/v1/health.proto');
    const health = new pkg.health.v1.Health(target, grpc.credentials.createInsecure());
    try {
      const inTime = await new Promise<number>((resolve) =>
        health.check({}, { deadline: Date.now() + 5000 }, (err: grpc.ServiceError | null) =>
          resolve(err ? err.code : grpc.status.OK),
        ),
      );
      assert.equal(inTime, grpc.status.OK);
      await until('both calls logged', () => codes('Check').length === 2);
      // The old log: ['ok', 'ok'].
      assert.deepEqual(codes('Check'), ['DeadlineExceeded', 'ok']);
      assert.deepEqual(
        lines.filter((l) => l.msg === 'rpc').map((l) => l.procedure),
        ['grpc.health.v1.Health/Check', 'grpc.health.v1.Health/Check'],
      );
    } finally {
      health.close();
    }
  });

  it('streams cancelled by their client, or whose client was killed, are Canceled', async () => {
    const { grpc: pkg } = loadProto('grpc/health/v1/health.proto');
    const health = new pkg.health.v1.Health(target, grpc.credentials.createInsecure());
    const call = health.watch({ service: '' });
    call.on('error', () => {});
    await new Promise((resolve) => call.once('data', resolve));
    call.cancel();
    await until('the cancelled watch logged', () => codes('Watch').length === 1);
    health.close();

    const count = 50;
    const client = spawn(
      process.execPath,
      ['--input-type=module', '-e', WATCHING_CLIENT, target, String(count)],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        client.stdout!.on('data', (chunk) => String(chunk).includes('open') && resolve());
        client.once('exit', (code) =>
          reject(new Error(`the client ended (${code}) before its watches opened`)),
        );
      });
    } finally {
      client.kill('SIGKILL');
    }
    await until('the killed client’s watches logged', () => codes('Watch').length === count + 1);
    // The old log counted every one of them "ok".
    assert.deepEqual(codes('Watch'), Array(count + 1).fill('Canceled'));
  });
});
