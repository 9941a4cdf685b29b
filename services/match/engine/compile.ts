/**
 * Derived product → EngineProduct, the compact form the engine scores.
 *
 * A request scores up to 100 000 products, so everything that does not depend on the scan is done once,
 * when the catalog is loaded: evidence per concern is capped and packed two bits per measure into one
 * integer, targets, caution flags and skin types become bitmasks. Scoring is then a handful of shifts,
 * multiplications and one division per product.
 */
import type { DerivedProduct, FormulationFlag, SkinType } from '../../catalog/derive.ts';
import { MEASURES, type Measure } from '../../shared/measures.ts';

/** Evidence at or above this fully covers a concern (one strong active, or weaker ones together). */
export const EVIDENCE_CAP = 3;
const BITS_PER_MEASURE = 2;
/** Extracts one measure's evidence once shifted down. */
export const EVIDENCE_MASK = (1 << BITS_PER_MEASURE) - 1;
/** A product addresses a concern (its `targets`, a scan's `matches_concerns`) at this summed evidence. */
export const TARGET_EVIDENCE = 2;

/** Bit positions of caution flags; fixed here so a compiled product means the same on every machine. */
export const FLAG_BITS: Readonly<Record<FormulationFlag, number>> = {
  fragrance: 1 << 0,
  drying_alcohol: 1 << 1,
  fungal_acne_trigger: 1 << 2,
  pore_clogging: 1 << 3,
  rich_texture: 1 << 4,
};
export const FLAG_COMBINATIONS = 1 << 5;

/** Skin types a person may state, with their bits. */
export const SKIN_TYPE_BITS: Readonly<Record<SkinType, number>> = {
  dry: 1 << 0,
  oily: 1 << 1,
  combination: 1 << 2,
  normal: 1 << 3,
};

export interface EngineProduct {
  /** Evidence per measure, capped at EVIDENCE_CAP, two bits per measure in MEASURES order. */
  readonly evidence: number;
  /**
   * One bit per measure (MEASURES order) the product targets: every one its evidence reaches
   * TARGET_EVIDENCE for, not only the strongest six its `targets` list shows.
   */
  readonly targets: number;
  /** One bit per caution flag (FLAG_BITS). */
  readonly flags: number;
  /** One bit per skin type the product suits (SKIN_TYPE_BITS); 0 when unknown. */
  readonly skinTypes: number;
  /** False when nothing can be said (no ingredient list): the score is null. */
  readonly scorable: boolean;
  /** Distinct barrier-support ingredients, capped at MAX_BARRIER (maintenance match). */
  readonly barrier: number;
  /** A sun-protection product with a UV filter (maintenance match). */
  readonly sunProtection: boolean;
}

/** Barrier support counts up to three distinct supporting ingredients. */
export const MAX_BARRIER = 3;

/** What compileProduct reads from a derived product. */
export type CompilableProduct = Pick<
  DerivedProduct,
  'evidence' | 'targets' | 'flags' | 'skin_types' | 'parsed_ingredients'
> &
  // Products derived before the maintenance match (knowledge 2026.11.3) lack these: no support, no filter.
  Partial<Pick<DerivedProduct, 'barrier_support' | 'sun_protection'>>;

/** Bit shift of a measure's evidence inside EngineProduct.evidence. */
export function evidenceShift(measure: Measure): number {
  return MEASURES.indexOf(measure) * BITS_PER_MEASURE;
}

export function measureBit(measure: Measure): number {
  return 1 << MEASURES.indexOf(measure);
}

export function compileProduct(product: CompilableProduct): EngineProduct {
  let evidence = 0;
  let targets = 0;
  for (const measure of MEASURES) {
    const value = product.evidence[measure] ?? 0;
    if (!Number.isInteger(value) || value < 0) {
      throw new RangeError(`evidence for ${measure} must be a non-negative integer, got ${value}`);
    }
    evidence |= Math.min(value, EVIDENCE_CAP) << evidenceShift(measure);
    if (value >= TARGET_EVIDENCE) targets |= measureBit(measure);
  }
  // The uncapped set: a product addressing seven concerns lists six in `targets`, and the seventh, when a
  // scan has it, still raises the score and must be named in `matches_concerns`.
  for (const measure of product.targets) targets |= measureBit(measure);

  let flags = 0;
  for (const flag of product.flags) {
    const bit = FLAG_BITS[flag];
    if (bit === undefined) throw new TypeError(`unknown formulation flag "${flag}"`);
    flags |= bit;
  }
  let skinTypes = 0;
  for (const type of product.skin_types) {
    // Declared types the engine does not weigh (sensitive) carry no bit.
    skinTypes |= SKIN_TYPE_BITS[type as SkinType] ?? 0;
  }
  return {
    evidence,
    targets,
    flags,
    skinTypes,
    scorable: product.parsed_ingredients.length > 0,
    barrier: Math.min(product.barrier_support?.length ?? 0, MAX_BARRIER),
    sunProtection: product.sun_protection === true,
  };
}
