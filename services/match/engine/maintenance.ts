/**
 * The maintenance score, for a scan with no concern: healthy skin still gets a meaningful match, for
 * keeping it that way — gentle formulas (no fragrance, no drying alcohol), barrier support, and sun
 * protection, fitted to the skin type the person stated.
 *
 *   gentle   = 2 − [fragrance] − [drying alcohol]                        0 … 2
 *   barrier  = distinct barrier-support ingredients, at most 3          0 … 3
 *   sun      = 3 for a sun-protection product with a UV filter, else 0   0 or 3
 *   fit      = 3/4 when a stated skin type is not among the product's, else 1
 *   score    = round(100 × (gentle + barrier + sun) / 8 × fit)
 *
 * Integers until the one division, as in the concern score, so it is the same on every machine.
 */
import { type EngineProduct, FLAG_BITS, MAX_BARRIER } from './compile.ts';

const GENTLE = 2;
const SUN = 3;
export const MAINTENANCE_POINTS = GENTLE + MAX_BARRIER + SUN;
const FIT = 4;
const MISFIT = 3;

export function maintenanceScore(product: EngineProduct, misfit: boolean): number {
  let gentle = GENTLE;
  if ((product.flags & FLAG_BITS.fragrance) !== 0) gentle--;
  if ((product.flags & FLAG_BITS.drying_alcohol) !== 0) gentle--;
  const points = gentle + product.barrier + (product.sunProtection ? SUN : 0);
  return Math.round((100 * points * (misfit ? MISFIT : FIT)) / (MAINTENANCE_POINTS * FIT));
}
