/**
 * A request message that does not parse (malformed protobuf bytes, invalid UTF-8 in a string field) is the
 * caller's fault: INVALID_ARGUMENT with reason invalid_input, as connect-go and grpc-go answer, not INTERNAL (which tells the caller to
 * send the same bytes again). Unary and streamed, over gRPC (a real @grpc/grpc-js client sending raw bytes)
 * and Connect; the server goes on answering.
 */
import assert from 'node:assert/strict';
import { create } from '@bufbuild/protobuf';
import { findTrailerError } from '@connectrpc/connect/protocol-grpc';
import * as grpc from '@grpc/grpc-js';
import { ErrorInfoSchema } from '../../gen/google/rpc/error_details_pb.ts';
import {
  HealthCheckResponse_ServingStatus,
  HealthCheckResponseSchema,
} from '../../gen/grpc/health/v1/health_pb.ts';
import type { RunningServer } from '../../services/shared/server.ts';
import { startHealthServer } from '../support/rpc-server.ts';

/** The ErrorInfo reason a refusal carries, as grpc-js hands it over. */
function reasonOf(err: grpc.ServiceError): string | undefined {
  const details = err.metadata.get('grpc-status-details-bin')[0] as Buffer | undefined;
  const trailer = new Headers({ 'grpc-status': String(err.code) });
  if (details) trailer.set('grpc-status-details-bin', details.toString('base64'));
  return findTrailerError(trailer)?.findDetails(ErrorInfoSchema)[0]?.reason;
}

/** Field 1 (`service`, a string) declared 5 bytes long, 1 byte sent. */
const TRUNCATED = Buffer.from([0x0a, 0x05, 0x61]);
/** Field 1 (`service`, a string) holding bytes that are not UTF-8. */
const NOT_UTF8 = Buffer.from([0x0a, 0x02, 0xff, 0xfe]);

describe('a request message that does not parse', () => {
  let server: RunningServer;
  let client: grpc.Client;

  before(async () => {
    server = await startHealthServer({
      check: () => create(HealthCheckResponseSchema, { status: HealthCheckResponse_ServingStatus.SERVING }),
      async *watch() {
        yield create(HealthCheckResponseSchema, { status: HealthCheckResponse_ServingStatus.SERVING });
      },
    });
    client = new grpc.Client(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
  });
  after(async () => {
    client?.close();
    await server?.close();
  });

  const raw = (bytes: Buffer) => bytes;
  const unary = (bytes: Buffer) =>
    new Promise<grpc.ServiceError | null>((done) =>
      client.makeUnaryRequest(
        '/grpc.health.v1.Health/Check',
        raw,
        (b: Buffer) => b,
        bytes,
        (err) => done(err),
      ),
    );
  const streamed = (bytes: Buffer) =>
    new Promise<grpc.ServiceError | null>((done) => {
      const call = client.makeServerStreamRequest(
        '/grpc.health.v1.Health/Watch',
        raw,
        (b: Buffer) => b,
        bytes,
      );
      call.on('data', () => {});
      call.on('error', (err: grpc.ServiceError) => done(err));
      call.on('status', (status: grpc.StatusObject) => status.code === grpc.status.OK && done(null));
    });

  for (const [name, bytes] of [
    ['truncated protobuf', TRUNCATED],
    ['invalid UTF-8 in a string', NOT_UTF8],
  ] as const) {
    it(`${name}: INVALID_ARGUMENT over gRPC, unary and streamed (was INTERNAL)`, async () => {
      const unaryErr = await unary(bytes);
      assert.equal(unaryErr?.code, grpc.status.INVALID_ARGUMENT, unaryErr?.details);
      assert.match(unaryErr.details, /^parse binary: /);
      assert.equal(reasonOf(unaryErr), 'invalid_input');
      const streamErr = await streamed(bytes);
      assert.equal(streamErr?.code, grpc.status.INVALID_ARGUMENT, streamErr?.details);
      assert.equal(reasonOf(streamErr), 'invalid_input');
      // The same call with a message that parses is answered.
      assert.equal(await unary(Buffer.from([0x0a, 0x01, 0x61])), null);
      assert.equal(await streamed(Buffer.alloc(0)), null);
    });
  }

  it('over Connect: HTTP 400 invalid_argument (was 500 internal)', async () => {
    const res = await fetch(`http://127.0.0.1:${server.port}/grpc.health.v1.Health/Check`, {
      method: 'POST',
      headers: { 'content-type': 'application/proto', 'connect-protocol-version': '1' },
      body: TRUNCATED,
    });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { code: string; details?: unknown[] };
    assert.equal(body.code, 'invalid_argument');
    assert.equal(body.details?.length, 1, 'the ErrorInfo');
  });
});
