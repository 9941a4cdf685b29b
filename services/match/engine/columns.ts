/**
 * A whole catalog scored in one pass. The compiled products are packed into columns (typed arrays), and for
 * each scan the coverage sum is tabulated for every value of each half of the packed evidence (five
 * measures, ten bits, 1024 values per half), so one product costs two table look-ups for its coverage,
 * one for its penalty, and the very expression of `scorePrepared`: the same score, bit for bit (a property
 * test compares the two on every product). About four times faster than calling a scorer per product
 * object, which matters at 100 000 products a request.
 */
import { type EngineProduct, EVIDENCE_MASK, FLAG_COMBINATIONS } from './compile.ts';
import { maintenanceScore } from './maintenance.ts';
import { FIT, FULL, MISFIT, type PreparedScan } from './score.ts';

/** In `scoreColumns`' result: nothing can be said (`scorePrepared` gives null). */
export const NO_SCORE = -1;

const HALF_BITS = 10;
const HALF_VALUES = 1 << HALF_BITS;

export interface ProductColumns {
  readonly size: number;
  readonly evidence: Int32Array;
  readonly flags: Uint8Array;
  readonly skinTypes: Uint8Array;
  readonly scorable: Uint8Array;
  /** Kept for the maintenance score of a scan with no concern. */
  readonly products: readonly EngineProduct[];
}

export function toColumns(products: readonly EngineProduct[]): ProductColumns {
  const size = products.length;
  const columns = {
    size,
    evidence: new Int32Array(size),
    flags: new Uint8Array(size),
    skinTypes: new Uint8Array(size),
    scorable: new Uint8Array(size),
    products,
  };
  products.forEach((product, i) => {
    columns.evidence[i] = product.evidence;
    columns.flags[i] = product.flags;
    columns.skinTypes[i] = product.skinTypes;
    columns.scorable[i] = product.scorable ? 1 : 0;
  });
  return columns;
}

/** Every product's score for a prepared scan, in column order: 0–100, or NO_SCORE. */
export function scoreColumns(scan: PreparedScan, columns: ProductColumns): Int8Array {
  const scores = new Int8Array(columns.size);
  if (scan.weights.length === 0) return maintenanceColumns(scan, columns, scores);
  const low = coverageTable(scan, 0);
  const high = coverageTable(scan, HALF_BITS);
  const { evidence, flags, skinTypes, scorable } = columns;
  const { penalties, skinBit, denominator } = scan;
  for (let i = 0; i < columns.size; i++) {
    if (scorable[i] === 0) {
      scores[i] = NO_SCORE;
      continue;
    }
    const packed = evidence[i]!;
    const covered = low[packed & (HALF_VALUES - 1)]! + high[packed >>> HALF_BITS]!;
    if (covered === 0) continue;
    const kept = FULL - penalties[flags[i]! & (FLAG_COMBINATIONS - 1)]!;
    const types = skinTypes[i]!;
    const fit = skinBit !== 0 && types !== 0 && (types & skinBit) === 0 ? MISFIT : FIT;
    scores[i] = Math.round((100 * covered * kept * fit) / denominator);
  }
  return scores;
}

/** A scan with no concern: every scorable product's maintenance score, as `scorePrepared` gives it. */
function maintenanceColumns(scan: PreparedScan, columns: ProductColumns, scores: Int8Array): Int8Array {
  const { skinBit } = scan;
  columns.products.forEach((product, i) => {
    const types = product.skinTypes;
    const misfit = skinBit !== 0 && types !== 0 && (types & skinBit) === 0;
    scores[i] = product.scorable ? maintenanceScore(product, misfit) : NO_SCORE;
  });
  return scores;
}

/** Σ weight × evidence over the scan's measures whose evidence lies in the half starting at bit `from`. */
function coverageTable(scan: PreparedScan, from: number): Float64Array {
  const table = new Float64Array(HALF_VALUES);
  for (let value = 0; value < HALF_VALUES; value++) {
    let covered = 0;
    for (let i = 0; i < scan.weights.length; i++) {
      const shift = scan.shifts[i]! - from;
      if (shift < 0 || shift >= HALF_BITS) continue;
      covered += scan.weights[i]! * ((value >>> shift) & EVIDENCE_MASK);
    }
    table[value] = covered;
  }
  return table;
}
