/**
 * Glasses frames are not skin (docs/inference.md, "Glasses"): frames painted on five package faces, a thin
 * and a thick rim, move wrinkles and texture by at most 5 points. Before frames were taken out of the
 * regions (frames.ts), the temples read as crow's-feet lines (wrinkles down by 11 to 39 points on faces c,
 * f, j and k) and the rims as relief.
 */
import assert from 'node:assert/strict';
import { FaceAnalysis } from '../../services/inference/face-analysis.ts';
import { FaceDetector } from '../../services/inference/face-detector.ts';
import { FaceLandmarker } from '../../services/inference/landmarks.ts';
import type { Measure } from '../../services/shared/measures.ts';
import { faceGeometry } from './support/edits.ts';
import { paintGlasses } from './support/glasses.ts';
import { moreFace, singleFace } from './support/photos.ts';

/**
 * The measures read where frames cross: the crow's-feet (wrinkles) and the cheeks' relief (texture). Not
 * dark circles, nor the cheeks' colour measures, nor dullness: docs/inference.md says what frames still move.
 */
const HELD: Measure[] = ['wrinkles', 'texture'];

const FACES: [string, () => Promise<Buffer>][] = [
  ['b', () => singleFace('b')],
  ['c', () => singleFace('c')],
  ['f', () => moreFace('f')],
  ['j', () => moreFace('j')],
  ['k', () => moreFace('k')],
];

async function scoresOf(analysis: FaceAnalysis, photo: Buffer): Promise<Record<Measure, number>> {
  let last: Awaited<ReturnType<AsyncGenerator['next']>>['value'];
  for await (const event of analysis.analyze(photo)) last = event;
  if (last?.kind !== 'result') throw new Error(`expected a result, got ${JSON.stringify(last)}`);
  return last.scores as Record<Measure, number>;
}

describe('glasses frames are not read as skin', function () {
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
    it(`face ${name}: thin and thick frames move wrinkles and texture by at most 5`, async () => {
      const photo = await load();
      const geometry = await faceGeometry(photo, detector, landmarker);
      const base = await scoresOf(analysis, photo);
      for (const thickness of [0.025, 0.05]) {
        const worn = await scoresOf(analysis, await paintGlasses(photo, geometry, thickness));
        const moves = Object.fromEntries(HELD.map((m) => [m, worn[m] - base[m]]));
        for (const m of HELD) {
          assert.ok(Math.abs(worn[m] - base[m]) <= 5, `${thickness}: ${JSON.stringify(moves)}`);
        }
      }
    });
  }
});
