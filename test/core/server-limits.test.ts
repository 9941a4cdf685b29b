import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import * as grpc from '@grpc/grpc-js';
import { Health } from '../../gen/grpc/health/v1/health_pb.ts';
import { ServerReflection } from '../../gen/grpc/reflection/v1/reflection_pb.ts';
import { CatalogService } from '../../gen/skinmatch/v1/catalog_pb.ts';
import { IntakeService } from '../../gen/skinmatch/v1/intake_pb.ts';
import { loadConfig } from '../../services/shared/config.ts';
import { ConfigError } from '../../services/shared/env-reader.ts';
import { ReflectionService } from '../../services/shared/reflection.ts';
import type { RunningServer } from '../../services/shared/server.ts';
import { DEFAULT_SERVER_LIMITS } from '../../services/shared/server-limits.ts';
import { loadProto, unary } from '../support/grpc-js.ts';
import { startTestServer } from '../support/rpc-server.ts';
import { type Stack, startStack } from '../support/stack.ts';

const MiB = 1024 * 1024;

describe('core bounds the watches it holds and the request it reads per method', () => {
  let stack: Stack;
  let scans: any;

  before(async () => {
    stack = await startStack('server-limits', { serverLimits: { ...DEFAULT_SERVER_LIMITS, maxWatches: 2 } });
    const { skinmatch } = loadProto('skinmatch/v1/scan.proto');
    scans = new skinmatch.v1.ScanService(new URL(stack.coreUrl).host, grpc.credentials.createInsecure());
  });
  after(async () => {
    scans?.close();
    await stack?.close();
  });

  const watch = (identity: object) => {
    const call = scans.watchScan(identity);
    const first = new Promise<grpc.ServiceError | 'data'>((resolve) => {
      call.on('data', () => resolve('data'));
      call.on('error', resolve);
    });
    return { call, first };
  };

  it('past GRPC_MAX_WATCHES open watches a new one is RESOURCE_EXHAUSTED; once one ends, one is taken again', async () => {
    const started: any = await unary(scans, 'startScan', { source: 'limits' });
    const identity = { runId: started.runId, accessToken: started.accessToken };
    const a = watch(identity);
    const b = watch(identity);
    assert.equal(await a.first, 'data');
    assert.equal(await b.first, 'data');
    const c = watch(identity);
    const refused = (await c.first) as grpc.ServiceError;
    assert.equal(refused.code, grpc.status.RESOURCE_EXHAUSTED);
    assert.equal(
      refused.details,
      'This server is holding as many watches as it may (2); watch again in a few seconds, or read the scan meanwhile.',
    );
    a.call.on('error', () => {});
    a.call.cancel();
    let again = watch(identity);
    for (let i = 0; i < 50 && (await again.first) !== 'data'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20)); // the cancel reaches core
      again = watch(identity);
    }
    assert.equal(await again.first, 'data');
    for (const { call } of [b, again]) {
      call.on('error', () => {});
      call.cancel();
    }
  });

  it('a 5 MiB message is refused unread by GetProduct, read by UploadPhoto (the photo bound)', async () => {
    const transport = createGrpcTransport({ baseUrl: stack.coreUrl });
    await assert.rejects(
      createClient(CatalogService, transport).getProduct({ productId: 'x'.repeat(5 * MiB) }),
      (err) => {
        assert.equal(ConnectError.from(err).code, Code.ResourceExhausted);
        return true;
      },
    );
    await assert.rejects(
      createClient(IntakeService, transport).uploadPhoto({
        runId: 'f'.repeat(32),
        browserSecret: 'a'.repeat(64),
        photo: new Uint8Array(5 * MiB),
      }),
      (err) => {
        assert.notEqual(ConnectError.from(err).code, Code.ResourceExhausted);
        return true;
      },
    );
  });
});

describe('the server bounds each connection and each request', () => {
  let server: RunningServer;
  let url: string;

  before(async () => {
    server = await startTestServer({
      limits: {
        ...DEFAULT_SERVER_LIMITS,
        maxStreamsPerConnection: 7,
        requestReadTimeoutMs: 300,
        keepaliveIntervalMs: 100,
        idleTimeoutMs: 400,
      },
      routes: (router) => {
        router.service(Health, { check: () => ({ status: 1 }), async *watch() {} });
        router.service(ServerReflection, new ReflectionService([Health, ServerReflection]));
      },
    });
    url = `http://127.0.0.1:${server.port}`;
  });
  after(() => server?.close(100));

  it('advertises its stream bound, pings, and sends GOAWAY to a connection idle past the bound', async () => {
    const session = http2.connect(url);
    const settings = await new Promise<http2.Settings>((resolve) => session.once('remoteSettings', resolve));
    assert.equal(settings.maxConcurrentStreams, 7);
    let pings = 0;
    session.on('ping', () => pings++);
    const goaway = await new Promise<number>((resolve) => session.once('goaway', resolve));
    assert.equal(goaway, http2.constants.NGHTTP2_NO_ERROR);
    assert.ok(pings >= 2, `pinged ${pings} times`);
    session.destroy();
  });

  it('a request whose message never arrives whole is answered DEADLINE_EXCEEDED; a bidi stream is not bound', async () => {
    const session = http2.connect(url);
    const { grpc: pkg } = loadProto('grpc/reflection/v1/reflection.proto');
    const reflection = new pkg.reflection.v1.ServerReflection(
      url.slice(7),
      grpc.credentials.createInsecure(),
    );
    // A bidi stream's request lasts as long as the call (reflection, as grpcurl holds it open).
    const call = reflection.serverReflectionInfo();
    const answers: any[] = [];
    const ended = new Promise<grpc.ServiceError | undefined>((resolve) => {
      call.on('data', (answer: any) => answers.push(answer));
      call.on('error', resolve);
      call.on('end', () => resolve(undefined));
    });
    try {
      const started = Date.now();
      const trailers = await new Promise<http2.IncomingHttpHeaders>((resolve, reject) => {
        const req = session.request(
          {
            ':method': 'POST',
            ':path': '/grpc.health.v1.Health/Check',
            'content-type': 'application/grpc',
            te: 'trailers',
          },
          { endStream: false },
        );
        req.write(Buffer.from([0, 0, 0, 0, 20])); // a 20-byte message announced, never sent
        req.on('trailers', resolve);
        req.on('error', reject);
        req.resume();
      });
      assert.equal(trailers['grpc-status'], String(Code.DeadlineExceeded));
      assert.equal(trailers['grpc-message'], 'The request did not arrive whole within 0.3 s.');
      assert.ok(Date.now() - started < 2000);
      // Past the bound, the bidi stream still takes a request and answers it.
      call.write({ listServices: '' });
      call.end();
      assert.equal(await ended, undefined);
      assert.deepEqual(
        answers[0].listServicesResponse.service.map((service: any) => service.name),
        ['grpc.health.v1.Health', 'grpc.reflection.v1.ServerReflection'],
      );
    } finally {
      session.destroy();
      reflection.close();
    }
  });
});

describe('the GRPC_* configuration', () => {
  it('reads each bound, and refuses a watch bound not under the stream bound', () => {
    const limits = loadConfig({
      GRPC_MAX_STREAMS_PER_CONNECTION: '300',
      GRPC_MAX_WATCHES: '200',
      GRPC_REQUEST_READ_TIMEOUT_MS: '5000',
      GRPC_KEEPALIVE_INTERVAL_MS: '10000',
      GRPC_IDLE_TIMEOUT_MS: '60000',
    }).serverLimits;
    assert.deepEqual(limits, {
      maxStreamsPerConnection: 300,
      maxWatches: 200,
      requestReadTimeoutMs: 5000,
      keepaliveIntervalMs: 10000,
      idleTimeoutMs: 60000,
      // Not configurable: the Rapid Reset line (grpc-cancel.test.ts).
      resetBurst: DEFAULT_SERVER_LIMITS.resetBurst,
      resetsPerSecond: DEFAULT_SERVER_LIMITS.resetsPerSecond,
    });
    assert.deepEqual(loadConfig({}).serverLimits, DEFAULT_SERVER_LIMITS);
    assert.throws(
      () => loadConfig({ GRPC_MAX_WATCHES: '1024', GRPC_REQUEST_READ_TIMEOUT_MS: '0' }),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError);
        assert.equal(err.problems.length, 2);
        assert.match(err.problems[0]!, /^GRPC_REQUEST_READ_TIMEOUT_MS: got "0", expected /);
        assert.equal(
          err.problems[1],
          'GRPC_MAX_WATCHES: got 1024, expected less than GRPC_MAX_STREAMS_PER_CONNECTION (1024)',
        );
        return true;
      },
    );
  });
});
