/**
 * The calibration, derived from the committed table of raw measures of real faces (raw-measures.csv,
 * written by `npm run calibrate`). For each measure, over the photos that pass the quality gates:
 * "good" (score 100) is the 10th percentile, and "bad" (score 0) is placed so that a face at the 75th
 * percentile sits exactly on the concern threshold — a concern then fires for about a quarter of the set —
 * but never closer to "good" than the measure's minimum span, so a set where nobody has acne does not
 * make a single spot read as severe. Pure functions of the table: a test re-derives the committed
 * calibration.json from it.
 */
import { CONCERN_THRESHOLDS, MEASURES, type Measure } from '../../shared/measures.ts';

export interface TableRow {
  readonly photo: string;
  readonly source: string;
  readonly person: string;
  /** `ok`, or the quality gate that refused the photo. */
  readonly outcome: string;
  /** Raw measures, measured even when a gate refused the photo (absent when no face was found). */
  readonly raw: Readonly<Record<Measure, number>> | undefined;
}

export interface MeasureCalibration {
  readonly good: number;
  readonly bad: number;
}

/**
 * The least raw distance from "good" to "bad", in each measure's units: about what a strong, clearly
 * visible case reads (the strong controlled edits of test/inference/edit-matrix.test.ts).
 */
export const MIN_SPAN: Readonly<Record<Measure, number>> = {
  acne: 0.06,
  redness: 12,
  dark_spots: 0.08,
  uneven_tone: 4,
  wrinkles: 0.065,
  pores: 0.07,
  texture: 0.25,
  dark_circles: 10,
  oiliness: 0.1,
  dullness: 4,
};

export const TABLE_COLUMNS = ['photo', 'source', 'person', 'outcome', ...MEASURES] as const;

export function formatTable(rows: readonly TableRow[]): string {
  const lines = rows.map((row) =>
    [
      row.photo,
      row.source,
      row.person,
      row.outcome,
      ...MEASURES.map((m) => (row.raw ? round(row.raw[m]) : '')),
    ].join(','),
  );
  return `${[TABLE_COLUMNS.join(','), ...lines].join('\n')}\n`;
}

export function parseTable(text: string): TableRow[] {
  const [header, ...lines] = text.trim().split('\n');
  if (header !== TABLE_COLUMNS.join(',')) throw new Error(`unexpected table header: ${header}`);
  return lines.map((line) => {
    const cells = line.split(',');
    const values = cells.slice(4);
    const raw = values.every((v) => v !== '')
      ? (Object.fromEntries(MEASURES.map((m, i) => [m, Number(values[i])])) as Record<Measure, number>)
      : undefined;
    return { photo: cells[0]!, source: cells[1]!, person: cells[2]!, outcome: cells[3]!, raw };
  });
}

/** Six significant digits: the table and the calibration are written at this precision. */
export function round(value: number): number {
  return Number(value.toPrecision(6));
}

export function percentile(sorted: readonly number[], p: number): number {
  const at = (sorted.length - 1) * p;
  const lo = Math.floor(at);
  const hi = Math.min(sorted.length - 1, lo + 1);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo);
}

export function deriveCalibration(rows: readonly TableRow[]): Record<Measure, MeasureCalibration> {
  const accepted = rows.filter((row) => row.outcome === 'ok' && row.raw);
  if (accepted.length < 10) throw new Error(`only ${accepted.length} accepted photos to calibrate on`);
  return Object.fromEntries(
    MEASURES.map((measure) => {
      const sorted = accepted.map((row) => row.raw![measure]).sort((a, b) => a - b);
      const good = percentile(sorted, 0.1);
      const atThreshold = percentile(sorted, 0.75);
      const span = (atThreshold - good) / (1 - CONCERN_THRESHOLDS[measure] / 100);
      return [measure, { good: round(good), bad: round(good + Math.max(MIN_SPAN[measure], span)) }];
    }),
  ) as Record<Measure, MeasureCalibration>;
}
