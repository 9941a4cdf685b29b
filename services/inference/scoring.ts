/**
 * From raw region features to scores. Each measure reads the regions where it shows (redness on the
 * cheeks, shine on forehead and nose, …), averaging left and right so that a mirrored photo scores the
 * same, and maps its raw value to 0–100 by a linear calibration between a "good" and a "bad" value,
 * clamped (docs/inference.md lists them and why). Higher is healthier. Concerns come from the shared
 * thresholds. All of it is a cosmetic estimate from one photo, not a diagnosis.
 */
import { concernsFromScores, MEASURES, type Measure } from '../shared/measures.ts';
import type { Features } from './measurer.ts';
import { REGIONS, type Region } from './regions.ts';

/** Changes whenever a calibration below changes: stored scores name what they were computed with. */
export const CALIBRATION_VERSION = 'calibration-1.0.0';

interface Calibration {
  /** Regions whose features are averaged. */
  readonly regions: readonly Region[];
  /** The raw value from the averaged features. */
  readonly raw: (
    f: (name: keyof Features) => number,
    at: (region: Region, name: keyof Features) => number,
  ) => number;
  /** Raw value scoring 100, and raw value scoring 0. */
  readonly good: number;
  readonly bad: number;
}

const CHEEKS: Region[] = ['right_cheek', 'left_cheek'];
const UNDER_EYES: Region[] = ['right_under_eye', 'left_under_eye'];

export const CALIBRATION: Readonly<Record<Measure, Calibration>> = {
  acne: { regions: [...CHEEKS, 'forehead', 'chin'], raw: (f) => f('red_spot_frac'), good: 0.002, bad: 0.05 },
  redness: { regions: CHEEKS, raw: (f) => f('a_mean'), good: 8, bad: 28 },
  dark_spots: { regions: [...CHEEKS, 'forehead'], raw: (f) => f('dark_spot_frac'), good: 0.008, bad: 0.05 },
  uneven_tone: { regions: [...CHEEKS, 'forehead'], raw: (f) => f('l_std'), good: 2, bad: 18 },
  wrinkles: { regions: ['forehead'], raw: (f) => f('line_energy'), good: 0.05, bad: 0.8 },
  pores: { regions: [...CHEEKS, 'nose'], raw: (f) => f('fine_energy'), good: 0.1, bad: 0.6 },
  texture: { regions: [...CHEEKS, 'forehead'], raw: (f) => f('coarse_energy'), good: 0.4, bad: 2.4 },
  dark_circles: {
    regions: [...CHEEKS, ...UNDER_EYES],
    raw: (_, at) => mean(CHEEKS.map((r) => at(r, 'l_mean'))) - mean(UNDER_EYES.map((r) => at(r, 'l_mean'))),
    good: 0,
    bad: 20,
  },
  oiliness: { regions: ['forehead', 'nose'], raw: (f) => f('specular_frac'), good: 0.01, bad: 0.15 },
  // Chroma relative to lightness, so that a deeper skin tone is not read as dull.
  dullness: {
    regions: [...CHEEKS, 'forehead'],
    raw: (f) => -f('chroma_mean') / Math.max(1, f('l_mean')),
    good: -0.4,
    bad: -0.05,
  },
};

export interface Scored {
  readonly scores: Readonly<Record<Measure, number>>;
  readonly raw: Readonly<Record<Measure, number>>;
  readonly concerns: Measure[];
}

/** `features` holds one row per region, in REGIONS order. */
export function scoreFeatures(features: readonly Features[]): Scored {
  const at = (region: Region, name: keyof Features) => features[REGIONS.indexOf(region)]![name];
  const scores = {} as Record<Measure, number>;
  const raw = {} as Record<Measure, number>;
  for (const measure of MEASURES) {
    const c = CALIBRATION[measure];
    const value = c.raw((name) => mean(c.regions.map((region) => at(region, name))), at);
    raw[measure] = value;
    const t = (value - c.good) / (c.bad - c.good);
    scores[measure] = Math.round(100 * (1 - Math.min(1, Math.max(0, t))));
  }
  return { scores, raw, concerns: concernsFromScores(scores).map((c) => c.name) };
}

function mean(values: readonly number[]): number {
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}
