/**
 * Tone weights (tone-weights.ts): uneven tone leaves out the cheek's pixels near the line from the nose's
 * wing to the mouth's corner, where a smile folds the cheek; every other pixel and region counts fully.
 */
import assert from 'node:assert/strict';
import { decodeImage } from '../../services/inference/decode.ts';
import type { Point } from '../../services/inference/face.ts';
import { FaceDetector } from '../../services/inference/face-detector.ts';
import { FaceLandmarker, type Landmarks, MIRROR } from '../../services/inference/landmarks.ts';
import { mainFace } from '../../services/inference/quality.ts';
import { PATCH, REGIONS } from '../../services/inference/regions.ts';
import { toneWeights } from '../../services/inference/tone-weights.ts';
import { singleFace } from './support/photos.ts';

const PLANE = PATCH * PATCH;
const planeOf = (weights: Float32Array, region: (typeof REGIONS)[number]) =>
  weights.subarray(REGIONS.indexOf(region) * PLANE, (REGIONS.indexOf(region) + 1) * PLANE);

describe('tone weights', () => {
  let landmarks: Landmarks;

  before(async () => {
    const image = await decodeImage(await singleFace('b'));
    const detector = await FaceDetector.load();
    const landmarker = await FaceLandmarker.load();
    landmarks = await landmarker.locate(image, mainFace(await detector.detect(image))!);
    await Promise.all([detector.release(), landmarker.release()]);
  });

  it("leave out the cheek's corner beside the nose and the mouth, and nothing else", () => {
    const weights = toneWeights(landmarks);
    assert.equal(weights.length, REGIONS.length * PLANE);
    for (const region of REGIONS) {
      if (region === 'right_cheek' || region === 'left_cheek') continue;
      assert.ok(
        planeOf(weights, region).every((w) => w === 1),
        `${region} is read whole`,
      );
    }
    // The patch runs along the eye line from the subject's right to left: the nose is at the right cheek's
    // last column. Face b is turned a little, its right cheek nearer the fold's line (the mirrored face, below,
    // has its left cheek there).
    const right = planeOf(weights, 'right_cheek');
    assert.equal(right[PATCH * PATCH - 1], 0);
    assert.equal(right[0], 1);
    const out = right.reduce((sum, w) => sum + (1 - w), 0) / PLANE;
    assert.ok(out > 0.05 && out < 0.4, `${out} of the right cheek left out`);
    assert.ok(
      planeOf(weights, 'left_cheek').every((w, i) => w === 1 || i % PATCH < PATCH / 2),
      "the left cheek's outer half is read whole",
    );
  });

  it("a mirrored face gets the mirrored weights: each cheek the other's, columns reversed", () => {
    const mirrored: Point[] = MIRROR.map((i) => [-landmarks[i]![0], landmarks[i]![1]]);
    const [weights, flipped] = [toneWeights(landmarks), toneWeights(mirrored)];
    for (const [region, other] of [
      ['right_cheek', 'left_cheek'],
      ['left_cheek', 'right_cheek'],
    ] as const) {
      for (let y = 0; y < PATCH; y++) {
        for (let x = 0; x < PATCH; x++) {
          const [a, b] = [
            planeOf(flipped, region)[y * PATCH + x]!,
            planeOf(weights, other)[y * PATCH + PATCH - 1 - x]!,
          ];
          assert.ok(Math.abs(a - b) < 1e-4, `${region} (${x}, ${y}): ${a} against ${b}`);
        }
      }
    }
  });

  it('are written into the buffer given', () => {
    const out = new Float32Array(REGIONS.length * PLANE).fill(7);
    assert.equal(toneWeights(landmarks, out), out);
    assert.deepEqual(out, toneWeights(landmarks));
  });
});
