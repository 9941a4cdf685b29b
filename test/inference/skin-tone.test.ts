/**
 * A person's skin tone alone does not change their dullness, texture, dark circles or tone. Dullness: the skin of real faces darkened in linear
 * light (test/inference/support/skin-tone.ts: eyes, brows, lips, nostrils and hair kept) to ×0.6, and on
 * three of them to ×0.4, moves dullness by at most 5 points, unclamped (the raw move over the calibration's
 * span, so a score held at 100 hides nothing). Before skin-measures-29.0.0 dullness read the contrast of
 * the middle of the face with its brows and eyes, which a darker skin, lifted back by the colour
 * correction, stands out from less: it fell by 6–23 points on these faces. Face j at ×0.4 moves 5.3 since
 * the probe darkens skin in shade too (−2 before, when its shade kept its lightness); ×0.25 is not held
 * (docs/inference.md, "Skin tone alone").
 * Texture: on nine faces at ×0.6 and ×0.4, and on d and i at ×0.6, it moves by at most 5 points,
 * unclamped, with the quality gates skipped (f is refused too blurry and h overexposed at these levels).
 * Texture is read relative to the eyes' contrast, the upper lids' skin less the pupils; before
 * skin-measures-30.0.0 the pupils were read after the colour correction, whose larger gains for a darker
 * skin lifted them, so the contrast fell and texture with it: a, b, c, d, e, f and h moved by 7–39 (g, i, j,
 * k by at most 4, held here so that they stay so). Not held: d at ×0.4 (−18: a makeup gem on its cheek,
 * which the probe keeps at its lightness, is lifted by the gains out of the dark spots and its rim read as
 * relief). i at ×0.4 is held since skin-measures-31.0.0 (+5 while the colour gains were capped at 8×).
 * Dark circles and uneven tone, as a person sees them: until skin-measures-31.0.0 the colour gains were
 * capped at 8×, so a darker skin past the cap was left darker than the reference the under-eyes and cheeks
 * are read against, and dark circles fell on d (×0.4: 28 → 19), i (64 → 43, ×0.25 → 0) and e (×0.25:
 * 100 → 66) and i's tone read more even (67 → 77). Faces c and h are not held: the landmarks of their darker
 * skin sit a little higher, and the region under the eye with them (docs/inference.md, "Skin tone alone").
 */
import assert from 'node:assert/strict';
import { CALIBRATION } from '../../services/inference/calibration/calibration.ts';
import type { FaceAnalysis, FaceAnalysisEvent } from '../../services/inference/face-analysis.ts';
import { analysisSuite, resultOf } from './support/analysed.ts';
import { moreFace, singleFace } from './support/photos.ts';
import { skinTone } from './support/skin-tone.ts';

/** Each face and the darkenings it is held to. */
const FACES: [string, () => Promise<Buffer>, number[]][] = [
  ['b', () => singleFace('b'), [0.6, 0.4]],
  ['c', () => singleFace('c'), [0.6]],
  ['g', () => moreFace('g'), [0.6, 0.4]],
  ['j', () => moreFace('j'), [0.6]],
  ['k', () => moreFace('k'), [0.6, 0.4]],
];

/** Each face and the darkenings its texture is held to. */
const TEXTURE_FACES: [string, () => Promise<Buffer>, number[]][] = [
  ['a', () => singleFace('a'), [0.6, 0.4]],
  ['b', () => singleFace('b'), [0.6, 0.4]],
  ['c', () => singleFace('c'), [0.6, 0.4]],
  ['d', () => singleFace('d'), [0.6]],
  ['e', () => moreFace('e'), [0.6, 0.4]],
  ['f', () => moreFace('f'), [0.6, 0.4]],
  ['g', () => moreFace('g'), [0.6, 0.4]],
  ['h', () => moreFace('h'), [0.6, 0.4]],
  ['i', () => moreFace('i'), [0.6, 0.4]],
  ['j', () => moreFace('j'), [0.6, 0.4]],
  ['k', () => moreFace('k'), [0.6, 0.4]],
];

/** The result of the photo measured with the quality gates skipped. */
async function measured(analysis: FaceAnalysis, photo: Buffer) {
  let last: FaceAnalysisEvent | undefined;
  for await (const event of analysis.analyze(photo, { skipQualityGates: true })) last = event;
  if (last?.kind !== 'result') throw new Error(`expected a result, got ${JSON.stringify(last)}`);
  return last;
}

/** Texture's score, unclamped, from the photo measured with the quality gates skipped. */
async function textureOf(analysis: FaceAnalysis, photo: Buffer): Promise<number> {
  const { raw } = await measured(analysis, photo);
  const { good, bad } = CALIBRATION.texture;
  return 100 * (1 - (raw.texture - good) / (bad - good));
}

/** Dullness's score, unclamped: its raw value mapped by the calibration, not held within 0–100. */
async function dullnessOf(analysis: FaceAnalysis, photo: Buffer): Promise<number> {
  const { raw } = await resultOf(analysis, photo);
  const { good, bad } = CALIBRATION.dullness;
  return 100 * (1 - (raw.dullness - good) / (bad - good));
}

describe('skin tone: a darker skin on the same face reads as dull as the lighter one', function () {
  this.timeout(300_000);
  const suite = analysisSuite();

  for (const [name, load, factors] of FACES) {
    it(`face ${name}: skin at ${factors.map((f) => `×${f}`).join(' and ')} of its linear light moves dullness by at most 5`, async () => {
      const photo = await load();
      const geometry = await suite.geometry(photo);
      const base = await dullnessOf(suite.analysis, photo);
      const moves: string[] = [];
      for (const factor of factors) {
        const darker = await dullnessOf(suite.analysis, await skinTone(photo, geometry, factor));
        moves.push(`×${factor}: ${base.toFixed(1)} → ${darker.toFixed(1)}`);
        assert.ok(Math.abs(darker - base) <= 5, moves.join('; '));
      }
    });
  }
});

describe('skin tone: a darker skin on the same face reads the same texture', function () {
  this.timeout(300_000);
  const suite = analysisSuite();

  for (const [name, load, factors] of TEXTURE_FACES) {
    it(`face ${name}: skin at ${factors.map((f) => `×${f}`).join(' and ')} of its linear light moves texture by at most 5`, async () => {
      const photo = await load();
      const geometry = await suite.geometry(photo);
      const base = await textureOf(suite.analysis, photo);
      const moves: string[] = [];
      for (const factor of factors) {
        const darker = await textureOf(suite.analysis, await skinTone(photo, geometry, factor));
        moves.push(`×${factor}: ${base.toFixed(1)} → ${darker.toFixed(1)}`);
        assert.ok(Math.abs(darker - base) <= 5, moves.join('; '));
      }
    });
  }
});

/** Each face, a measure, the darkenings it is held to and by how many points (its score, as a person sees it). */
type Held = [string, () => Promise<Buffer>, 'dark_circles' | 'uneven_tone', number[], number];
const face = (name: 'b' | 'd' | 'e' | 'f' | 'g' | 'i' | 'j' | 'k') => () =>
  name === 'b' || name === 'd' ? singleFace(name) : moreFace(name);
const TONE_HELD: Held[] = [
  ...(['b', 'd', 'e', 'f', 'g', 'i', 'j', 'k'] as const).map(
    (name): Held => [name, face(name), 'dark_circles', [0.6, 0.4], 5],
  ),
  ['e', face('e'), 'dark_circles', [0.25], 10],
  ['i', face('i'), 'dark_circles', [0.25], 10],
  ['i', face('i'), 'uneven_tone', [0.6, 0.4], 5],
];

describe('skin tone: a darker skin on the same face reads the same dark circles and tone', function () {
  this.timeout(300_000);
  const suite = analysisSuite();

  for (const [name, load, measure, factors, bound] of TONE_HELD) {
    it(`face ${name}: skin at ${factors.map((f) => `×${f}`).join(' and ')} of its linear light moves ${measure} by at most ${bound}`, async () => {
      const photo = await load();
      const geometry = await suite.geometry(photo);
      const base = (await measured(suite.analysis, photo)).scores[measure];
      const moves: string[] = [];
      for (const factor of factors) {
        const darker = await skinTone(photo, geometry, factor);
        const score = (await measured(suite.analysis, darker)).scores[measure];
        moves.push(`×${factor}: ${base} → ${score}`);
        assert.ok(Math.abs(score - base) <= bound, moves.join('; '));
      }
    });
  }
});
