/**
 * The orientation check (FaceDetector.upsideDown) runs the front model once more, on the face's
 * surroundings turned by 180°, only for a face that could be upside down: a face scoring above any
 * upside-down face seen (SURELY_UPRIGHT) is upright without that run.
 */
import assert from 'node:assert/strict';
import sharp, { type Sharp } from 'sharp';
import { decodeImage } from '../../services/inference/decode.ts';
import { FaceAnalysis } from '../../services/inference/face-analysis.ts';
import { FaceDetector } from '../../services/inference/face-detector.ts';
import { mainFace } from '../../services/inference/quality.ts';
import { benchPhotos } from '../bench/bench-photos.ts';
import { outcome } from './support/analysed.ts';
import { singleFace } from './support/photos.ts';
import { countRuns } from './support/session-runs.ts';

const jpeg = (image: Sharp) => image.jpeg({ quality: 95 }).toBuffer();

describe('the orientation check: the turned view only for a face that could be upside down', function () {
  this.timeout(300_000);
  let detector: FaceDetector;
  let analysis: FaceAnalysis;

  before(async () => {
    detector = await FaceDetector.load();
    analysis = await FaceAnalysis.load();
  });

  after(async () => {
    await detector.release();
    await analysis.close();
  });

  /** The main face of a photo and what the orientation check answers for it, with its runs. */
  async function check(photo: Buffer) {
    const image = await decodeImage(photo);
    const face = mainFace(await detector.detect(image));
    assert.ok(face, 'a face is found');
    return { score: face.score, ...(await countRuns(() => detector.upsideDown(image, face))) };
  }

  // Before: every face was looked at turned, one more run of the front model a photo.
  it('a face scoring above 0.94 is upright without the turned view: no run', async () => {
    for (const photo of [await singleFace('d'), await singleFace('c')]) {
      const { score, value, runs } = await check(photo);
      assert.ok(score > 0.945, `scores ${score}`);
      assert.equal(runs, 0);
      assert.ok(value < 0, `upside down by ${value}`);
    }
  });

  it('the 1920 px bench photo is analysed with five runs (detector ×2, landmarks, measures ×2), not six', async () => {
    const photo = (await benchPhotos())['1920 px (1920×1440)'];
    const { value, runs } = await countRuns(() => outcome(analysis, photo));
    assert.equal(value.kind, 'result');
    assert.equal(runs, 5);
  });

  it('an upright face scoring lower is still looked at turned, and found upright', async () => {
    const { score, value, runs } = await check(await singleFace('a'));
    assert.ok(score < 0.9, `scores ${score}`);
    assert.equal(runs, 1);
    assert.ok(value < 0, `upside down by ${value}`);
  });

  it('the same faces upside down are looked at turned and refused as face_turned', async () => {
    for (const name of ['a', 'c', 'd'] as const) {
      const photo = await singleFace(name);
      for (const [how, bytes] of [
        ['flipped', await jpeg(sharp(photo).flip())],
        ['turned 180°', await jpeg(sharp(photo).rotate(180))],
      ] as const) {
        const { score, value, runs } = await check(bytes);
        assert.ok(score < 0.9, `face ${name} ${how} scores ${score}`);
        assert.equal(runs, 1, `face ${name} ${how}`);
        assert.ok(value > 0, `face ${name} ${how} upside down by ${value}`);
        const answer = await outcome(analysis, bytes);
        assert.equal(answer.kind === 'failure' && answer.reason, 'face_turned', `face ${name} ${how}`);
      }
    }
  });
});
