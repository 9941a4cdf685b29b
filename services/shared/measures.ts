/**
 * The skin measures a scan reports, and when a measure becomes a concern.
 *
 * Scores run 0–100 with higher meaning healthier skin (the convention of commercial skin-analysis APIs).
 * A measure whose score is below its threshold is a concern; its severity grows as the score falls.
 * Inference derives a scan's concerns with these thresholds and the matching engine weighs them by
 * severity, so both read them from here.
 */

export const MEASURES = [
  'acne',
  'redness',
  'dark_spots',
  'uneven_tone',
  'wrinkles',
  'pores',
  'texture',
  'dark_circles',
  'oiliness',
  'dullness',
] as const;

export type Measure = (typeof MEASURES)[number];

/** Scores below these are concerns. */
export const CONCERN_THRESHOLDS: Readonly<Record<Measure, number>> = {
  acne: 70,
  redness: 65,
  dark_spots: 65,
  uneven_tone: 60,
  wrinkles: 60,
  pores: 60,
  texture: 60,
  dark_circles: 60,
  oiliness: 60,
  dullness: 55,
};

/** At most this many concerns are reported for one scan (spec: `scan_concerns` max 6). */
export const MAX_CONCERNS = 6;

export interface Concern {
  readonly name: Measure;
  /** 0 (just below the threshold) to 1 (score 0). */
  readonly severity: number;
}

/** Concerns of a scan, worst first (ties by name), at most MAX_CONCERNS. */
export function concernsFromScores(scores: Partial<Record<Measure, number>>): Concern[] {
  const concerns: Concern[] = [];
  for (const name of MEASURES) {
    const score = scores[name];
    const threshold = CONCERN_THRESHOLDS[name];
    if (score === undefined || score >= threshold) continue;
    const severity = Math.round(((threshold - score) / threshold) * 1000) / 1000;
    concerns.push({ name, severity });
  }
  concerns.sort((a, b) => b.severity - a.severity || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return concerns.slice(0, MAX_CONCERNS);
}

export function isMeasure(name: string): name is Measure {
  return (MEASURES as readonly string[]).includes(name);
}
