/**
 * Side light (issue 13): a face lit from one side, or with one side in shade, must not read as anything
 * the light made. The probe (support/side-light.ts) multiplies the photo in linear light by a ramp across
 * the face, from 1 on the lit side to k on the other, along the eye line. A mild side light (k = 0.7) from
 * either side moves every score of the ten package faces that pass the gates by at most 5 points, except
 * the two limits in KNOWN_MOVES (docs/inference.md, "Side light", states each and what was tried): face d's
 * dark circles (its under-eye regions lie across the lid's shade and follow the landmarks, which the light
 * moves by 0.3 pixels) and face g's dullness (the ramp flattens the face's own light and shade, which
 * dullness reads as contrast). A regression guard: the probe and these bounds hold on the code as it is.
 */
import assert from 'node:assert/strict';
import { MEASURES, type Measure } from '../../services/shared/measures.ts';
import { analysisSuite } from './support/analysed.ts';
import { type FaceName, type MoreFaceName, moreFace, singleFace } from './support/photos.ts';
import { lightField, sideLight } from './support/side-light.ts';

/** Package faces a–k but h, which is refused overexposed as it is. */
const FACES = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'i', 'j', 'k'] as const;
const load = (name: (typeof FACES)[number]) =>
  'abcd'.includes(name) ? singleFace(name as FaceName) : moreFace(name as MoreFaceName);
/** The most a mild side light may move a score, in points. */
const BOUND = 5;
/** Moves past BOUND measured at k = 0.7, by face and measure: the largest the test accepts. */
const KNOWN_MOVES: Partial<Record<string, Partial<Record<Measure, number>>>> = {
  d: { dark_circles: 11 },
  g: { dullness: 6 },
};

describe('side light: a ramp of light across the face', function () {
  this.timeout(300_000);
  const suite = analysisSuite();

  it('is 1 on the lit side and k on the other, smooth between, from the left, the right or above', async () => {
    const photo = await singleFace('b');
    const g = await suite.geometry(photo);
    const at = (field: Float64Array, x: number, y: number) => field[Math.round(y) * g.width + Math.round(x)]!;
    const [right, left, chin] = [g.points[0]!, g.points[16]!, g.points[8]!];
    const fromLeft = lightField(g, 0.5, 'left');
    assert.ok(at(fromLeft, right[0], right[1]) > 0.99);
    assert.ok(Math.abs(at(fromLeft, left[0], left[1]) - 0.5) < 0.01);
    const nose = g.points[30]!;
    assert.ok(Math.abs(at(fromLeft, nose[0], nose[1]) - 0.75) < 0.1, `${at(fromLeft, nose[0], nose[1])}`);
    const fromRight = lightField(g, 0.5, 'right');
    assert.ok(Math.abs(at(fromRight, right[0], right[1]) - 0.5) < 0.01);
    assert.ok(Math.abs(at(lightField(g, 0.5, 'top'), chin[0], chin[1]) - 0.5) < 0.01);
    // Neighbouring pixels differ by at most the ramp's slope: no step.
    let steepest = 0;
    for (let i = 1; i < fromLeft.length; i++) {
      if (i % g.width !== 0) steepest = Math.max(steepest, Math.abs(fromLeft[i]! - fromLeft[i - 1]!));
    }
    assert.ok(steepest < 0.01, `${steepest}`);
  });

  it('at k = 0.7 from either side moves no score by more than 5, but for the known limits', async () => {
    const over: string[] = [];
    for (const name of FACES) {
      const photo = await load(name);
      const geometry = await suite.geometry(photo);
      const base = await suite.scores(photo);
      for (const side of ['left', 'right'] as const) {
        const lit = await suite.scores(await sideLight(photo, geometry, 0.7, side));
        for (const m of MEASURES) {
          const bound = KNOWN_MOVES[name]?.[m] ?? BOUND;
          if (Math.abs(lit[m] - base[m]) > bound)
            over.push(`${name} lit ${side} ${m}: ${base[m]} → ${lit[m]}`);
        }
      }
    }
    assert.deepEqual(over, []);
  });

  it('at k = 0.5 from either side moves dullness by at most 5 on faces b, j and k', async () => {
    // One side of the middle of the face lit, the other shaded: until skin-measures-37.0.0 dullness read the
    // step between them as the face's contrast, and moved by 6, 6 and 8 (11, 11 and 14 at k = 0.35;
    // docs/inference.md, "Dullness: one side lit").
    const over: string[] = [];
    for (const name of ['b', 'j', 'k'] as const) {
      const photo = await load(name);
      const geometry = await suite.geometry(photo);
      const base = await suite.scores(photo);
      for (const side of ['left', 'right'] as const) {
        const lit = await suite.scores(await sideLight(photo, geometry, 0.5, side));
        if (Math.abs(lit.dullness - base.dullness) > BOUND)
          over.push(`${name} lit ${side}: ${base.dullness} → ${lit.dullness}`);
      }
    }
    assert.deepEqual(over, []);
  });
});
