/**
 * Dullness reads colour as well as light and shade (`skin-measures-25.0.0`): a photo made less saturated,
 * its contrast untouched, reads duller, more so the less saturated, on each of the controlled-edit faces.
 * Before, dullness read the spread of L* alone, and a photo cut to 20 % saturation moved it by at most 3
 * points (docs/inference.md, "Dullness reads colour").
 */
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { CALIBRATION } from '../../services/inference/calibration/calibration.ts';
import { FaceAnalysis } from '../../services/inference/face-analysis.ts';
import { MEASURES } from '../../services/shared/measures.ts';
import { resultOf } from './support/analysed.ts';
import { moreFace, singleFace } from './support/photos.ts';

const FACES: [string, () => Promise<Buffer>][] = [
  ['b', () => singleFace('b')],
  ['c', () => singleFace('c')],
  ['g', () => moreFace('g')],
  ['j', () => moreFace('j')],
  ['k', () => moreFace('k')],
];

/** Saturation kept, from faint to strong: chroma × k in CIE LCh (sharp's modulate), lightness untouched. */
const SATURATIONS = [0.8, 0.6, 0.4, 0.2];

/**
 * Redness is the cheeks' erythema index above the rest of the face's, and a photo cut to a fraction k of
 * its saturation holds k of every difference in colour: its raw value goes to about k times the photo's.
 * So its score moves as far as the photo lies from the calibration's "good" end (face g's cheeks read far
 * less red than its baseline, −6.2 at full and −1.3 at 20 % saturation: 100 → 84), and what is held is
 * that it follows the saturation so, within 5 points' worth of the calibration's span.
 */
const REDNESS_SPAN = CALIBRATION.redness.bad - CALIBRATION.redness.good;

describe('dullness reads colour: a less saturated photo reads duller', function () {
  this.timeout(300_000);
  let analysis: FaceAnalysis;
  before(async () => {
    analysis = await FaceAnalysis.load();
  });
  after(() => analysis.close());

  for (const [name, load] of FACES) {
    it(`face ${name}: dullness falls as saturation falls, by at least 10 at 20 %, and redness follows it, every other measure moves by at most 5`, async () => {
      const photo = await load();
      const { scores: base, raw: baseRaw } = await resultOf(analysis, photo);
      const results = [];
      for (const k of SATURATIONS)
        results.push(
          await resultOf(
            analysis,
            await sharp(photo).modulate({ saturation: k }).jpeg({ quality: 95 }).toBuffer(),
          ),
        );
      const rows = results.map((result) => result.scores);
      const series = [base.dullness, ...rows.map((row) => row.dullness)];
      const label = `dullness ${series.join(' → ')}`;
      for (let i = 1; i < series.length; i++)
        assert.ok(series[i]! <= series[i - 1]! + 1, `not monotonic: ${label}`);
      assert.ok(series[0]! - series.at(-1)! >= 10, `20 % saturation moves it little: ${label}`);
      assert.ok(series[0]! - series[1]! < series[0]! - series.at(-1)!, `all or nothing: ${label}`);
      for (const [i, row] of rows.entries()) {
        const k = SATURATIONS[i]!;
        const redness = results[i]!.raw.redness;
        assert.ok(
          Math.abs(redness - k * baseRaw.redness) <= (5 / 100) * REDNESS_SPAN,
          `saturation ${k}: redness's raw ${baseRaw.redness} → ${redness}, not about ${k} times it`,
        );
        for (const other of MEASURES.filter((m) => m !== 'dullness' && m !== 'redness')) {
          assert.ok(
            Math.abs(row[other] - base[other]) <= 5,
            `saturation ${k}: ${other} ${base[other]} → ${row[other]} (bound 5)`,
          );
        }
      }
    });
  }
});
