import assert from 'node:assert/strict';
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { Health, HealthCheckResponseSchema } from '../../gen/grpc/health/v1/health_pb.ts';
import type { RunningServer } from '../../services/shared/server.ts';
import { capturingLogger } from '../support/captured-log.ts';
import { startHealthServer } from '../support/rpc-server.ts';

describe('unexpected errors reach clients only as "internal error"', () => {
  let server: RunningServer;
  let client: ReturnType<typeof createClient<typeof Health>>;
  const { logger, lines } = capturingLogger('error');

  before(async () => {
    server = await startHealthServer(
      {
        check: () => {
          throw new Error('secret detail of a unary call');
        },
        async *watch() {
          yield create(HealthCheckResponseSchema, {});
          throw new Error('secret detail of a stream');
        },
      },
      { logger },
    );
    client = createClient(Health, createGrpcTransport({ baseUrl: `http://127.0.0.1:${server.port}` }));
  });
  after(() => server?.close());

  const expectInternal = (err: unknown) => {
    const error = ConnectError.from(err);
    assert.equal(error.code, Code.Internal);
    assert.equal(error.rawMessage, 'internal error');
    return true;
  };

  it('in a unary call', async () => {
    await assert.rejects(client.check({}), expectInternal);
    assert.ok(
      lines.some((line) => JSON.stringify(line).includes('secret detail of a unary call')),
      'logged for operators',
    );
  });

  it('in the middle of a stream', async () => {
    const received: unknown[] = [];
    await assert.rejects(async () => {
      for await (const message of client.watch({})) received.push(message);
    }, expectInternal);
    assert.equal(received.length, 1);
    assert.ok(
      lines.some((line) => JSON.stringify(line).includes('secret detail of a stream')),
      'logged for operators',
    );
  });
});
