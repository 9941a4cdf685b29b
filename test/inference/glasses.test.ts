/**
 * Glasses frames are not skin (docs/inference.md, "Glasses"): frames painted on five package faces, a thin
 * and a thick rim, move wrinkles and texture by at most 5 points. Before frames were taken out of the
 * regions (frames.ts), the temples read as crow's-feet lines (wrinkles down by 11 to 39 points on faces c,
 * f, j and k) and the rims as relief.
 */
import assert from 'node:assert/strict';
import type { Measure } from '../../services/shared/measures.ts';
import { analysisSuite } from './support/analysed.ts';
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

describe('glasses frames are not read as skin', function () {
  this.timeout(300_000);
  const suite = analysisSuite();

  for (const [name, load] of FACES) {
    it(`face ${name}: thin and thick frames move wrinkles and texture by at most 5`, async () => {
      const photo = await load();
      const geometry = await suite.geometry(photo);
      const base = await suite.scores(photo);
      for (const thickness of [0.025, 0.05]) {
        const worn = await suite.scores(await paintGlasses(photo, geometry, thickness));
        const moves = Object.fromEntries(HELD.map((m) => [m, worn[m] - base[m]]));
        for (const m of HELD) {
          assert.ok(Math.abs(worn[m] - base[m]) <= 5, `${thickness}: ${JSON.stringify(moves)}`);
        }
      }
    });
  }
});
