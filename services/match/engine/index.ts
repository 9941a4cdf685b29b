/**
 * The matching engine, `skinmatch/engine`: pure and deterministic, no I/O.
 *
 *   const product = compileProduct(deriveProduct(raw));      // once, when the catalog loads
 *   const scoreFor = createScorer(scan.concerns, skinType);  // once per request
 *   const scores = products.map(scoreFor);                   // integers 0–100, or null
 *
 * `score(concerns, product, skinType?)` does the last two steps for a single product; `scoreColumns` scores
 * a whole catalog packed once with `toColumns`, to the same scores, several times faster. docs/matching-engine.md
 * documents the formula.
 */
import type { SkinType } from '../../catalog/derive.ts';
import { type Concern, MEASURES, type Measure } from '../../shared/measures.ts';
import { type EngineProduct, measureBit } from './compile.ts';

export type { SkinType } from '../../catalog/derive.ts';
export type { Concern, Measure } from '../../shared/measures.ts';
export { NO_SCORE, type ProductColumns, scoreColumns, toColumns } from './columns.ts';
export { type CompilableProduct, compileProduct, type EngineProduct, EVIDENCE_CAP } from './compile.ts';
export { CONFLICTS, type Conflict, MAX_PENALTY_PERCENT } from './conflicts.ts';
export {
  createScorer,
  ENGINE_VERSION,
  type PreparedScan,
  prepareScan,
  score,
  scorePrepared,
} from './score.ts';

/**
 * The scan's concerns this product targets (`matches_concerns`), worst first, ties in measure order, so the
 * order of the input does not matter.
 */
export function matchesConcerns(concerns: readonly Concern[], product: EngineProduct): Measure[] {
  const worst = new Map<Measure, number>();
  for (const { name, severity } of concerns) worst.set(name, Math.max(severity, worst.get(name) ?? 0));
  return [...worst.keys()]
    .filter((name) => (product.targets & measureBit(name)) !== 0)
    .sort((a, b) => worst.get(b)! - worst.get(a)! || MEASURES.indexOf(a) - MEASURES.indexOf(b));
}

export interface ScoredProduct {
  readonly product_id: string;
  readonly match_score: number | null;
}

/** Ranking order: higher score first, null scores last, ties by product_id, so top-N is deterministic. */
export function compareMatches(a: ScoredProduct, b: ScoredProduct): number {
  const byScore = (b.match_score ?? -1) - (a.match_score ?? -1);
  if (byScore !== 0) return byScore;
  return a.product_id < b.product_id ? -1 : a.product_id > b.product_id ? 1 : 0;
}

/** Stated skin types the engine understands, for validating input before prepareScan. */
export const STATED_SKIN_TYPES: readonly SkinType[] = ['dry', 'oily', 'combination', 'normal'];
