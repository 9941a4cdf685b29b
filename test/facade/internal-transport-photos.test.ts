/**
 * The façade's transport to core with photos queued on its one HTTP/2 connection. Node refuses a new
 * stream on a client session once 10 MB (its default maxSessionMemory) are queued to send on it: a few
 * large uploads to a core whose event loop is busy made every call after them — any tool call — fail with
 * NGHTTP2_ENHANCE_YOUR_CALM. INTERNAL_SESSION_OPTIONS lifts that bound (internal-transport.ts says why).
 */
import assert from 'node:assert/strict';
import { create } from '@bufbuild/protobuf';
import { createClient } from '@connectrpc/connect';
import {
  IntakeService,
  type UploadPhotoRequest,
  UploadPhotoResponseSchema,
} from '../../gen/skinmatch/v1/intake_pb.ts';
import { createInternalTransport } from '../../services/shared/internal-transport.ts';
import type { RunningServer } from '../../services/shared/server.ts';
import { startTestServer } from '../support/rpc-server.ts';

/** Holds the event loop as a busy core does (the photo check's decoding: ~30 ms a photo). */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('the façade’s transport to core, photos queued on its connection', () => {
  let server: RunningServer;
  const received: number[] = [];
  before(async () => {
    server = await startTestServer({
      readMaxBytes: 4 * 1024 * 1024,
      routes: (router) =>
        router.service(IntakeService, {
          async uploadPhoto(req: UploadPhotoRequest) {
            busy(30);
            received.push(req.photo.length);
            return create(UploadPhotoResponseSchema, {});
          },
        }),
    });
  });
  after(() => server.close(0));

  it('24 uploads of 1 MiB at once on one connection are all answered', async () => {
    const intake = createClient(
      IntakeService,
      createInternalTransport({ baseUrl: `http://127.0.0.1:${server.port}` }),
    );
    const photo = new Uint8Array(1024 * 1024).fill(0xff);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 24 }, (_, i) =>
        intake.uploadPhoto({ runId: String(i), browserSecret: 'secret', photo }),
      ),
    );
    const failed = outcomes.flatMap((o) => (o.status === 'rejected' ? [String(o.reason)] : []));
    assert.deepEqual(failed, []);
    assert.deepEqual(received, Array(24).fill(photo.length));
  });
});
