import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, createClient, type Transport } from '@connectrpc/connect';
import {
  createConnectTransport,
  createGrpcTransport,
  createGrpcWebTransport,
} from '@connectrpc/connect-node';
import * as grpc from '@grpc/grpc-js';
import { Health, HealthCheckResponseSchema } from '../../gen/grpc/health/v1/health_pb.ts';
import type { RunningServer } from '../../services/shared/server.ts';
import { loadProto, unary } from '../support/grpc-js.ts';
import { startHealthServer } from '../support/rpc-server.ts';

/** Every character connect-node's encodeURIComponent encodes and grpc-js's decodeURI leaves encoded, a '%', non-ASCII. */
const MESSAGE = 'free_from items must be fragrance, alcohol: + ; / ? # & = $ @ 100% — sûr, 日本';

describe('error messages reach every client exactly (grpc-message as the gRPC spec encodes it)', () => {
  let server: RunningServer;
  let url: string;

  before(async () => {
    server = await startHealthServer({
      check: () => {
        throw new ConnectError(MESSAGE, Code.InvalidArgument);
      },
      async *watch() {
        yield create(HealthCheckResponseSchema, {});
        throw new ConnectError(MESSAGE, Code.FailedPrecondition);
      },
    });
    url = `http://127.0.0.1:${server.port}`;
  });
  after(() => server?.close(1000));

  it('a @grpc/grpc-js client, unary and streaming', async () => {
    const { Health: HealthClient } = loadProto('grpc/health/v1/health.proto').grpc.health.v1;
    const client = new HealthClient(url.replace('http://', ''), grpc.credentials.createInsecure());
    try {
      await assert.rejects(unary(client, 'check', {}), (err: grpc.ServiceError) => {
        assert.equal(err.code, grpc.status.INVALID_ARGUMENT);
        assert.equal(err.details, MESSAGE);
        return true;
      });
      const error = await new Promise<grpc.ServiceError>((resolve) => {
        const stream = client.watch({});
        stream.on('data', () => {});
        stream.on('error', resolve);
      });
      assert.equal(error.code, grpc.status.FAILED_PRECONDITION);
      assert.equal(error.details, MESSAGE);
    } finally {
      client.close();
    }
  });

  it('on the wire: only % and bytes outside 0x20-0x7E are percent-encoded', async () => {
    const session = http2.connect(url);
    try {
      const trailers = await new Promise<http2.IncomingHttpHeaders>((resolve, reject) => {
        const req = session.request({
          ':method': 'POST',
          ':path': '/grpc.health.v1.Health/Check',
          'content-type': 'application/grpc',
          te: 'trailers',
        });
        req.on('trailers', resolve);
        req.on('error', reject);
        req.resume();
        req.end(Buffer.from([0, 0, 0, 0, 0]));
      });
      assert.equal(trailers['grpc-status'], String(Code.InvalidArgument));
      assert.equal(
        trailers['grpc-message'],
        'free_from items must be fragrance, alcohol: + ; / ? # & = $ @ 100%25 %E2%80%94 s%C3%BBr, %E6%97%A5%E6%9C%AC',
      );
    } finally {
      session.close();
    }
  });

  const transports: Record<string, () => Transport> = {
    'Connect over HTTP/2': () => createConnectTransport({ baseUrl: url, httpVersion: '2' }),
    'gRPC (connect-node)': () => createGrpcTransport({ baseUrl: url }),
    'gRPC-Web over HTTP/2': () => createGrpcWebTransport({ baseUrl: url, httpVersion: '2' }),
    'Connect over HTTP/1.1': () => createConnectTransport({ baseUrl: url, httpVersion: '1.1' }),
    'gRPC-Web over HTTP/1.1': () => createGrpcWebTransport({ baseUrl: url, httpVersion: '1.1' }),
  };
  for (const [name, transport] of Object.entries(transports)) {
    it(`a ${name} client, unary and streaming`, async () => {
      const client = createClient(Health, transport());
      await assert.rejects(client.check({}), (err: unknown) => {
        const error = ConnectError.from(err);
        assert.equal(error.code, Code.InvalidArgument);
        assert.equal(error.rawMessage, MESSAGE);
        return true;
      });
      const received: unknown[] = [];
      await assert.rejects(
        async () => {
          for await (const message of client.watch({})) received.push(message);
        },
        (err: unknown) => {
          const error = ConnectError.from(err);
          assert.equal(error.code, Code.FailedPrecondition);
          assert.equal(error.rawMessage, MESSAGE);
          return true;
        },
      );
      assert.equal(received.length, 1);
    });
  }
});
