/**
 * Many analyses at once on core's one HTTP/2 connection to inference (services/scan/inference-transport.ts,
 * as core's main.ts makes it), against a real inference server. Inference analyses one photo at a time on
 * its event loop, so the photos of the analyses waiting stay queued on core's side of the connection; past
 * Node's default bound on that (10 MB) every new stream was refused with NGHTTP2_ENHANCE_YOUR_CALM: 32
 * analyses of a 2048 px photo (578 kB) got 14 refused. Now all complete, each with the same scores as the
 * photo's analysis alone.
 */
import assert from 'node:assert/strict';
import { pino } from 'pino';
import sharp from 'sharp';
import { startInference } from '../../services/inference/inference-server.ts';
import type { AnalysisEvent } from '../../services/scan/analyzer.ts';
import { InferenceAnalyzer } from '../../services/scan/inference-analyzer.ts';
import { createInferenceTransport } from '../../services/scan/inference-transport.ts';
import type { RunningServer } from '../../services/shared/server.ts';
import { singleFace } from '../inference/support/photos.ts';

const ANALYSES = 32;

describe('many analyses at once on core’s connection to inference', function () {
  this.timeout(300_000);
  let server: RunningServer;
  let analyzer: InferenceAnalyzer;
  let photo: Buffer;

  before(async () => {
    server = await startInference(0, pino({ level: 'silent' }), '127.0.0.1');
    analyzer = new InferenceAnalyzer(createInferenceTransport(`http://127.0.0.1:${server.port}`), 240_000);
    // As large as core stores a photo (2048 px, photo-check.ts), in a JPEG of high quality.
    photo = await sharp(await singleFace('b'))
      .resize(2048, 2048)
      .jpeg({ quality: 95 })
      .toBuffer();
  });
  after(() => server?.close(0));

  const outcome = async (): Promise<AnalysisEvent | undefined> => {
    let last: AnalysisEvent | undefined;
    for await (const event of analyzer.analyze(photo, new AbortController().signal)) last = event;
    return last;
  };

  it(`${ANALYSES} analyses of a 2048 px photo at once all complete, with the scores of one alone`, async () => {
    assert.ok(photo.length > 500_000, `${photo.length} bytes`);
    const alone = await outcome();
    assert.equal(alone?.kind, 'result');
    const started = performance.now();
    const outcomes = await Promise.allSettled(Array.from({ length: ANALYSES }, outcome));
    const ms = performance.now() - started;
    console.log(
      `      ${ANALYSES} analyses of ${photo.length} bytes at once: ${Math.round(ms)} ms, ` +
        `${Math.round(ms / ANALYSES)} ms an analysis`,
    );
    const failed = outcomes.flatMap((o) => (o.status === 'rejected' ? [String(o.reason)] : []));
    assert.deepEqual(failed, []);
    for (const o of outcomes) assert.deepEqual(o.status === 'fulfilled' && o.value, alone);
  });
});
