/**
 * A beard is hair, not skin: painted on real faces (test/inference/support/beard.ts: stubble, a short
 * beard, a full one, over jaw, chin and upper lip, below the cheekbones), it moves neither dark circles,
 * texture nor dullness by more than 5 points, and on the bearded face the dark-circle edit still reads. Before, the
 * beard on the chin, a third of the colour correction's baseline, lowered its median: the correction lifted
 * the skin under the eyes, and dark circles read up to 20 points healthier (face g), 8–11 on faces a, f
 * (docs/inference.md, "Beards"); dullness, read over the whole face down to the chin, read the beard as
 * contrast and rose by up to 26 points on these faces (42 on face j), and reads the face from the brows to
 * the nose's base now (skin-measures-27.0.0). Faces whose beard stays clear of the cheeks' regions: one that grows into
 * them is read by texture as relief (what the measures cannot see, ibid.).
 */
import assert from 'node:assert/strict';
import { FaceAnalysis } from '../../services/inference/face-analysis.ts';
import { FaceDetector } from '../../services/inference/face-detector.ts';
import { FaceLandmarker } from '../../services/inference/landmarks.ts';
import type { Measure } from '../../services/shared/measures.ts';
import { addBeard } from './support/beard.ts';
import { edit, faceGeometry, type Strength } from './support/edits.ts';
import { moreFace, singleFace } from './support/photos.ts';

type Scores = Record<Measure, number>;

const FACES: [string, () => Promise<Buffer>][] = [
  ['a', () => singleFace('a')],
  ['b', () => singleFace('b')],
  ['f', () => moreFace('f')],
  ['g', () => moreFace('g')],
  ['k', () => moreFace('k')],
];
const STRENGTHS: Strength[] = [1, 2, 3];

async function scoresOf(analysis: FaceAnalysis, photo: Buffer): Promise<Scores> {
  let last: Awaited<ReturnType<AsyncGenerator['next']>>['value'];
  for await (const event of analysis.analyze(photo)) last = event;
  if (last?.kind !== 'result') throw new Error(`expected a result, got ${JSON.stringify(last)}`);
  return last.scores as Scores;
}

describe('beards: hair on jaw, chin and upper lip is not read as dark circles, texture or dullness', function () {
  this.timeout(300_000);
  let analysis: FaceAnalysis;
  let detector: FaceDetector;
  let landmarker: FaceLandmarker;

  before(async () => {
    analysis = await FaceAnalysis.load();
    detector = await FaceDetector.load();
    landmarker = await FaceLandmarker.load();
  });
  after(async () => {
    await Promise.all([analysis.close(), detector.release(), landmarker.release()]);
  });

  for (const [name, load] of FACES) {
    it(`face ${name}: stubble to a full beard move dark circles, texture and dullness by at most 5; the dark-circle edit still reads`, async () => {
      const photo = await load();
      const geometry = await faceGeometry(photo, detector, landmarker);
      const base = await scoresOf(analysis, photo);
      const moves: string[] = [];
      let bearded: Buffer | undefined;
      for (const s of STRENGTHS) {
        bearded = await addBeard(photo, geometry, s);
        const scores = await scoresOf(analysis, bearded);
        for (const measure of ['dark_circles', 'texture', 'dullness'] as const) {
          moves.push(`${measure} ${base[measure]} → ${scores[measure]} (strength ${s})`);
          assert.ok(Math.abs(scores[measure] - base[measure]) <= 5, moves.join('; '));
        }
      }
      const full = await scoresOf(analysis, bearded!);
      const circles = await edit(
        bearded!,
        await faceGeometry(bearded!, detector, landmarker),
        'dark_circles',
        3,
      );
      const read = await scoresOf(analysis, circles);
      assert.ok(
        full.dark_circles - read.dark_circles >= 10,
        `the dark-circle edit on the full beard: ${full.dark_circles} → ${read.dark_circles}`,
      );
    });
  }
});
