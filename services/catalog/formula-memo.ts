/**
 * Derivation for imports: a catalog carries the same formula under many product ids (sizes, variants,
 * markets, retailers' copies of one product), and reading an INCI list is most of a derivation's cost, so
 * each distinct ingredient field is analysed once per import. The products derived are exactly those of
 * `deriveProduct` (a test compares them); only the time differs.
 */
import {
  analyseFormula,
  type DerivedProduct,
  type Formula,
  isSunProtection,
  productOf,
  type RawProduct,
} from './derive.ts';

/** Formulas kept at most; past it the memo starts afresh, so memory stays bounded on any file. */
const MAX_FORMULAS = 20_000;

export function createDeriver(): (raw: RawProduct) => DerivedProduct {
  const formulas = new Map<string, Formula>();
  return (raw) => {
    const sun = isSunProtection(raw);
    if (typeof raw.ingredients !== 'string') return productOf(raw, analyseFormula(raw.ingredients, sun));
    const key = `${sun ? 's' : 'n'}${raw.ingredients}`;
    let formula = formulas.get(key);
    if (formula === undefined) {
      if (formulas.size >= MAX_FORMULAS) formulas.clear();
      formula = analyseFormula(raw.ingredients, sun);
      formulas.set(key, formula);
    }
    return productOf(raw, formula);
  };
}
