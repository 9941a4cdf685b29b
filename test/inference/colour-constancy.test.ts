import assert from 'node:assert/strict';
import {
  baselineGains,
  boxMean,
  CLIPPED,
  clipLevels,
  normaliseColour,
} from '../../services/inference/colour-constancy.ts';
import { FaceAnalysis } from '../../services/inference/face-analysis.ts';
import { PATCH, REGIONS } from '../../services/inference/regions.ts';
import { MEASURES, type Measure } from '../../services/shared/measures.ts';
import { recast } from './support/camera.ts';
import { type MoreFaceName, moreFace, singleFace } from './support/photos.ts';

/** The measures the issue calls colour measures: they must not follow white balance or exposure. */
const COLOUR: Measure[] = ['redness', 'uneven_tone', 'dark_spots', 'dark_circles', 'dullness'];

async function outcome(analysis: FaceAnalysis, photo: Buffer) {
  let last: Awaited<ReturnType<AsyncGenerator['next']>>['value'];
  for await (const event of analysis.analyze(photo)) last = event;
  return last;
}

async function scores(analysis: FaceAnalysis, photo: Buffer) {
  const last = await outcome(analysis, photo);
  if (last?.kind !== 'result') throw new Error(`expected a result, got ${JSON.stringify(last)}`);
  return last.scores as Record<Measure, number>;
}

/** The scores, or undefined when the photo is refused as overexposed (skin clipped at white). */
async function scoresUnlessClipped(analysis: FaceAnalysis, photo: Buffer) {
  const last = await outcome(analysis, photo);
  if (last?.kind === 'failure' && last.reason === 'overexposed') return undefined;
  if (last?.kind !== 'result')
    throw new Error(`expected a result or overexposed, got ${JSON.stringify(last)}`);
  return last.scores as Record<Measure, number>;
}

function assertWithin(
  base: Record<Measure, number>,
  moved: Record<Measure, number> | undefined,
  measures: Measure[],
  label: string,
) {
  if (!moved) return;
  for (const m of measures) {
    assert.ok(Math.abs(moved[m] - base[m]) <= 5, `${label}: ${m} ${base[m]} → ${moved[m]}`);
  }
}

describe('colour constancy', function () {
  this.timeout(120_000);
  let analysis: FaceAnalysis;
  const faces: [string, () => Promise<Buffer>][] = [
    ...(['a', 'b', 'c'] as const).map((n): [string, () => Promise<Buffer>] => [n, () => singleFace(n)]),
    ...(['e', 'g', 'j', 'k'] as MoreFaceName[]).map((n): [string, () => Promise<Buffer>] => [
      n,
      () => moreFace(n),
    ]),
  ];

  before(async () => {
    analysis = await FaceAnalysis.load();
  });

  it("the skin rule's box mean is, to the bit, the sum of the values inside the patch within 2 of each, left to right, over their count", () => {
    const values = Float64Array.from({ length: PATCH * PATCH }, (_, i) => ((i * 7919) % 997) / 997);
    for (const step of [1, PATCH]) {
      const out = new Float64Array(values.length);
      boxMean(values, out, step, step === 1 ? PATCH : 1);
      for (let line = 0; line < PATCH; line++) {
        const start = line * (step === 1 ? PATCH : 1);
        for (let k = 0; k < PATCH; k++) {
          let sum = 0;
          let count = 0;
          for (let j = k - 2; j <= k + 2; j++) {
            if (j < 0 || j >= PATCH) continue;
            sum += values[start + j * step]!;
            count++;
          }
          assert.ok(Object.is(out[start + k * step], sum / count), `step ${step}, line ${line}, value ${k}`);
        }
      }
    }
  });

  it('gains undo any per-channel scaling of the patches: scaled patches normalise to the same colours', () => {
    const plane = PATCH * PATCH;
    const patches = new Float32Array(REGIONS.length * 3 * plane);
    for (let i = 0; i < patches.length; i++) patches[i] = 0.35 + 0.3 * Math.abs(Math.sin(i * 0.37));
    const toLinear = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
    const toSrgb = (c: number) => (c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055);
    const cast = [1.2, 1, 0.75];
    const tinted = patches.map((v, i) => toSrgb(toLinear(v) * cast[Math.floor(i / plane) % 3]!));
    const gains = baselineGains(patches);
    const tintedGains = baselineGains(tinted);
    for (let c = 0; c < 3; c++)
      assert.ok(Math.abs(tintedGains[c]! * cast[c]! - gains[c]!) < 1e-3 * gains[c]!);
    const a = normaliseColour(patches);
    const b = normaliseColour(tinted);
    let worst = 0;
    for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i]! - b[i]!));
    assert.ok(worst < 2e-3, `largest difference ${worst}`);
  });

  it('a channel the gain lifts past white keeps its value above 1, and scaled patches still normalise alike', () => {
    const plane = PATCH * PATCH;
    const patches = new Float32Array(REGIONS.length * 3 * plane);
    for (let i = 0; i < patches.length; i++) patches[i] = 0.35 + 0.6 * Math.abs(Math.sin(i * 0.37));
    const toLinear = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
    const toSrgb = (c: number) => (c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055);
    // Half the red light and less blue: every value stays under white in the photo.
    const cast = [0.5, 1, 0.8];
    const tinted = patches.map((v, i) => toSrgb(toLinear(v) * cast[Math.floor(i / plane) % 3]!));
    const a = normaliseColour(patches);
    const b = normaliseColour(tinted);
    let worst = 0;
    let above = 0;
    for (let i = 0; i < a.length; i++) {
      worst = Math.max(worst, Math.abs(a[i]! - b[i]!));
      if (a[i]! > 1) above++;
    }
    // 9 % of the values lie above 1: clipped at white, as they were, the graph read their R/G wrong.
    assert.ok(above > a.length / 50, `${above} of ${a.length} above 1`);
    assert.ok(worst < 2e-3, `largest difference ${worst}`);
  });

  it('the clip levels are where the correction takes a value clipped in the photo (CLIPPED), exactly', () => {
    const plane = PATCH * PATCH;
    const patches = new Float32Array(REGIONS.length * 3 * plane);
    for (let i = 0; i < patches.length; i++) patches[i] = 0.35 + 0.3 * Math.abs(Math.sin(i * 0.37));
    const gains = baselineGains(patches);
    const levels = clipLevels(gains);
    const probe = new Float32Array(REGIONS.length * 3 * plane);
    for (let c = 0; c < 3; c++) {
      probe.fill(CLIPPED, c * plane, c * plane + 2);
      probe.fill(Math.fround(CLIPPED) - 2 ** -20, c * plane + 2, c * plane + 4);
    }
    const out = normaliseColour(probe, undefined, gains);
    for (let c = 0; c < 3; c++) {
      assert.equal(out[c * plane], levels[c], `channel ${c}`);
      assert.ok(out[c * plane + 2]! < levels[c]!, `channel ${c} just below`);
    }
  });

  for (const [name, load] of faces) {
    it(`face ${name}: a white balance set ±1500 K away (5000 K, 8000 K) moves no score by more than 5`, async () => {
      const photo = await load();
      const base = await scores(analysis, photo);
      for (const kelvin of [5000, 8000]) {
        assertWithin(base, await scores(analysis, await recast(photo, kelvin)), [...MEASURES], `${kelvin} K`);
      }
    });
  }

  // +0.5 EV on face a clips its brightest cheek skin to white, which no correction can undo: see docs.
  for (const [name, load] of faces) {
    const stops = name === 'a' ? [-0.5] : [-0.5, 0.5];
    it(`face ${name}: exposure ${stops.map((ev) => `${ev > 0 ? '+' : ''}${ev} EV`).join(' and ')} moves no colour measure by more than 5`, async () => {
      const photo = await load();
      const base = await scores(analysis, photo);
      for (const ev of stops) {
        // Half a stop more clips red on a third of face g's skin: it is refused (quality.ts, MAX_CLIPPED).
        const shot = await recast(photo, 6500, ev);
        const moved = ev > 0 ? await scoresUnlessClipped(analysis, shot) : await scores(analysis, shot);
        assertWithin(base, moved, COLOUR, `${ev} EV`);
      }
    });
  }
});
