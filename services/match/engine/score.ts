/**
 * The match score: how well a product's formula fits a scan's concerns, 0–100.
 *
 *   weight(c)   = 250 + round(1000 × severity(c))                      (integer, 250..1250)
 *   coverage    = Σ weight(c) × min(evidence(c), 3)  /  (3 × Σ weight(c))
 *   penalty     = min(60 %, Σ conflict % × weight(trigger concern) / 1250)
 *   fit         = 3/4 when the person stated a skin type the product does not suit, else 1
 *   score       = round(100 × coverage × (1 − penalty) × fit)
 *
 * A scan with no concern gets the maintenance score (maintenance.ts) instead of null.
 *
 * Every sum is over integers, so the order of concerns cannot change it, and the one division happens
 * last: the same inputs give the same score on every machine. docs/matching-engine.md has a worked example.
 */
import type { SkinType } from '../../catalog/derive.ts';
import { type Concern, isMeasure, type Measure } from '../../shared/measures.ts';
import {
  type EngineProduct,
  EVIDENCE_CAP,
  EVIDENCE_MASK,
  evidenceShift,
  FLAG_BITS,
  FLAG_COMBINATIONS,
  SKIN_TYPE_BITS,
} from './compile.ts';
import { CONFLICTS, MAX_PENALTY_PERCENT } from './conflicts.ts';
import { maintenanceScore } from './maintenance.ts';

/** Part of `match_basis`: scores are comparable only between equal engine versions. */
export const ENGINE_VERSION = '1.1.0';

/** A concern just below its threshold still counts, at a fifth of the weight of the worst possible one. */
const BASE_WEIGHT = 250;
const SEVERITY_STEPS = 1000;
const MAX_WEIGHT = BASE_WEIGHT + SEVERITY_STEPS;
/** Penalties are kept in units of percent × weight; this is 100 %. */
export const FULL = 100 * MAX_WEIGHT;
export const FIT = 4;
export const MISFIT = 3;

/** A scan's concerns prepared once, to score many products against. */
export interface PreparedScan {
  readonly shifts: readonly number[];
  readonly weights: readonly number[];
  /** Penalty (percent × weight) for each combination of caution flags. */
  readonly penalties: Int32Array;
  readonly skinBit: number;
  readonly denominator: number;
}

function checkedWeights(concerns: readonly Concern[]): Map<Measure, number> {
  if (!Array.isArray(concerns)) throw new TypeError('concerns must be an array');
  const weights = new Map<Measure, number>();
  for (const concern of concerns) {
    if (!isMeasure(concern?.name)) throw new TypeError(`unknown concern "${String(concern?.name)}"`);
    if (typeof concern.severity !== 'number' || !Number.isFinite(concern.severity)) {
      throw new RangeError(`severity of ${concern.name} must be a finite number`);
    }
    const severity = Math.min(1, Math.max(0, concern.severity));
    const weight = BASE_WEIGHT + Math.round(severity * SEVERITY_STEPS);
    // A concern listed twice counts once, at its worse severity.
    weights.set(concern.name, Math.max(weight, weights.get(concern.name) ?? 0));
  }
  return weights;
}

export function prepareScan(concerns: readonly Concern[], skinType?: SkinType | null): PreparedScan {
  const weights = checkedWeights(concerns);
  if (skinType !== undefined && skinType !== null && SKIN_TYPE_BITS[skinType] === undefined) {
    throw new TypeError(`unknown skin type "${String(skinType)}"`);
  }
  const penalties = new Int32Array(FLAG_COMBINATIONS);
  for (let flags = 0; flags < FLAG_COMBINATIONS; flags++) {
    let units = 0;
    for (const conflict of CONFLICTS) {
      if ((flags & FLAG_BITS[conflict.flag]) === 0) continue;
      if ('concern' in conflict) units += conflict.percent * (weights.get(conflict.concern) ?? 0);
      else if (conflict.statedSkinType === skinType) units += conflict.percent * MAX_WEIGHT;
    }
    penalties[flags] = Math.min(units, MAX_PENALTY_PERCENT * MAX_WEIGHT);
  }
  let weightSum = 0;
  for (const weight of weights.values()) weightSum += weight;
  return {
    shifts: [...weights.keys()].map(evidenceShift),
    weights: [...weights.values()],
    penalties,
    skinBit: skinType ? SKIN_TYPE_BITS[skinType] : 0,
    denominator: EVIDENCE_CAP * weightSum * FULL * FIT,
  };
}

/** Scores one compiled product against a prepared scan; null when nothing can be said. */
export function scorePrepared(scan: PreparedScan, product: EngineProduct): number | null {
  if (!product.scorable) return null;
  if (scan.weights.length === 0) return maintenanceScore(product, misfit(scan, product));
  let covered = 0;
  for (let i = 0; i < scan.weights.length; i++) {
    covered += scan.weights[i]! * ((product.evidence >>> scan.shifts[i]!) & EVIDENCE_MASK);
  }
  if (covered === 0) return 0;
  const kept = FULL - scan.penalties[product.flags & (FLAG_COMBINATIONS - 1)]!;
  const fit = misfit(scan, product) ? MISFIT : FIT;
  return Math.round((100 * covered * kept * fit) / scan.denominator);
}

/** The person stated a skin type the product is known not to suit. */
function misfit(scan: PreparedScan, product: EngineProduct): boolean {
  return scan.skinBit !== 0 && product.skinTypes !== 0 && (product.skinTypes & scan.skinBit) === 0;
}

/** A scorer for one scan, for scoring a whole catalog: `products.map(createScorer(concerns))`. */
export function createScorer(
  concerns: readonly Concern[],
  skinType?: SkinType | null,
): (product: EngineProduct) => number | null {
  const scan = prepareScan(concerns, skinType);
  return (product) => scorePrepared(scan, product);
}

/**
 * Match score of a product for a scan's concerns, 0–100 (the maintenance score when the scan has no
 * concern), or null when nothing can be said: the product has no ingredient list.
 */
export function score(
  concerns: readonly Concern[],
  product: EngineProduct,
  skinType?: SkinType | null,
): number | null {
  return scorePrepared(prepareScan(concerns, skinType), product);
}
