/**
 * Unary calls the protocol refuses before our code runs — too large, unparsable, compressed in an encoding
 * the server lacks — are logged once and counted like every other call (they were neither), without their
 * payload; and the UNIMPLEMENTED answer for an unknown grpc-encoding names the encodings the server takes in
 * grpc-accept-encoding, as the gRPC spec asks. Real @grpc/grpc-js clients.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http2 from 'node:http2';
import { create } from '@bufbuild/protobuf';
import * as grpc from '@grpc/grpc-js';
import { HealthCheckResponseSchema } from '../../gen/grpc/health/v1/health_pb.ts';
import { rpcCalls } from '../../services/shared/metrics.ts';
import type { RunningServer } from '../../services/shared/server.ts';
import { capturingLogger } from '../support/captured-log.ts';
import { startHealthServer } from '../support/rpc-server.ts';

const CHECK = '/grpc.health.v1.Health/Check';
const SECRET = 'payload-never-logged';

/** The count of Health/Check calls ended with `code`. */
async function counted(code: string): Promise<number> {
  const { values } = await rpcCalls.get();
  const found = values.find(
    (v) => v.labels.method === 'grpc.health.v1.Health/Check' && v.labels.code === code,
  );
  return found?.value ?? 0;
}

describe('unary calls refused before the service runs', () => {
  let server: RunningServer;
  let target: string;
  const { logger, lines } = capturingLogger();
  const raw = (b: Buffer) => b;

  before(async () => {
    server = await startHealthServer(
      { check: () => create(HealthCheckResponseSchema, {}) },
      { logger, readMaxBytes: 1024 },
    );
    target = `127.0.0.1:${server.port}`;
  });
  after(() => server?.close());

  const call = (client: grpc.Client, bytes: Buffer) =>
    new Promise<grpc.ServiceError>((done, fail) =>
      client.makeUnaryRequest(CHECK, raw, raw, bytes, (err) =>
        err ? done(err) : fail(new Error('answered')),
      ),
    );
  /** A `service` field holding `text`. */
  const message = (text: string) => Buffer.concat([Buffer.from([0x0a, text.length]), Buffer.from(text)]);

  it('an unknown grpc-encoding: UNIMPLEMENTED with grpc-accept-encoding, which grpc-js follows', async () => {
    // On the wire: the encodings the server takes, in the answer's headers.
    const session = http2.connect(`http://${target}`);
    try {
      const stream = session.request({
        ':method': 'POST',
        ':path': CHECK,
        'content-type': 'application/grpc',
        te: 'trailers',
        'grpc-encoding': 'snappy',
      });
      stream.end(Buffer.from([1, 0, 0, 0, 1, 0]));
      const trailers = once(stream, 'trailers');
      const [headers] = (await once(stream, 'response')) as [http2.IncomingHttpHeaders];
      stream.resume();
      assert.equal(headers['grpc-accept-encoding'], 'gzip,br');
      const [status] = (await trailers) as [http2.IncomingHttpHeaders];
      assert.equal(status['grpc-status'], String(grpc.status.UNIMPLEMENTED));
    } finally {
      session.close();
    }
    // grpc-js compresses with deflate, which connect-node does not take: told which it does, it sends its
    // next call uncompressed, which is answered.
    const client = new grpc.Client(target, grpc.credentials.createInsecure(), {
      'grpc.default_compression_algorithm': grpc.compressionAlgorithms.deflate,
    });
    try {
      assert.equal((await call(client, message('svc'))).code, grpc.status.UNIMPLEMENTED);
      const answered = await new Promise<grpc.ServiceError | null>((done) =>
        client.makeUnaryRequest(CHECK, raw, raw, message('svc'), (err) => done(err)),
      );
      assert.equal(answered, null);
    } finally {
      client.close();
    }
  });

  it('too large, unparsable, bad compression: each logged once and counted, without its payload', async () => {
    const plain = new grpc.Client(target, grpc.credentials.createInsecure());
    const deflating = new grpc.Client(target, grpc.credentials.createInsecure(), {
      'grpc.default_compression_algorithm': grpc.compressionAlgorithms.deflate,
    });
    try {
      const before = {
        ResourceExhausted: await counted('ResourceExhausted'),
        InvalidArgument: await counted('InvalidArgument'),
        Unimplemented: await counted('Unimplemented'),
      };
      lines.length = 0;
      const tooLarge = Buffer.concat([message(SECRET), Buffer.alloc(2000)]);
      assert.equal((await call(plain, tooLarge)).code, grpc.status.RESOURCE_EXHAUSTED);
      const truncated = Buffer.concat([Buffer.from([0x0a, 0x7f]), Buffer.from(SECRET)]);
      assert.equal((await call(plain, truncated)).code, grpc.status.INVALID_ARGUMENT);
      assert.equal((await call(deflating, message(SECRET))).code, grpc.status.UNIMPLEMENTED);

      const logged = lines.filter((l) => l.msg === 'rpc');
      assert.deepEqual(
        logged.map(({ procedure, code, refused }) => ({ procedure, code, refused })),
        ['ResourceExhausted', 'InvalidArgument', 'Unimplemented'].map((code) => ({
          procedure: 'grpc.health.v1.Health/Check',
          code,
          refused: true,
        })),
      );
      for (const line of logged) assert.equal(typeof line.ms, 'number');
      assert.ok(!JSON.stringify(lines).includes(SECRET), 'no payload logged');
      for (const [code, n] of Object.entries(before)) assert.equal(await counted(code), n + 1, code);
    } finally {
      plain.close();
      deflating.close();
    }
  });
});
