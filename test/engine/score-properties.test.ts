import assert from 'node:assert/strict';
import fc from 'fast-check';
import { deriveProduct, type SkinType } from '../../services/catalog/derive.ts';
import {
  compileProduct,
  createScorer,
  type EngineProduct,
  score,
} from '../../services/match/engine/index.ts';
import { type Concern, MEASURES, type Measure } from '../../services/shared/measures.ts';
import { rawProduct } from '../support/raw-product.ts';

const concernArb = fc.record({
  name: fc.constantFrom(...MEASURES),
  severity: fc.double({ min: 0, max: 1, noNaN: true }),
});
const concernsArb = fc.array(concernArb, { maxLength: 12 });
const someConcernsArb = fc.array(concernArb, { minLength: 1, maxLength: 12 });
const skinTypeArb = fc.constantFrom<SkinType | undefined>(undefined, 'dry', 'oily', 'combination', 'normal');
const productArb: fc.Arbitrary<EngineProduct> = fc.record({
  evidence: fc.integer({ min: 0, max: 2 ** (2 * MEASURES.length) - 1 }),
  targets: fc.integer({ min: 0, max: 2 ** MEASURES.length - 1 }),
  flags: fc.integer({ min: 0, max: 31 }),
  skinTypes: fc.integer({ min: 0, max: 15 }),
  scorable: fc.boolean(),
  barrier: fc.integer({ min: 0, max: 3 }),
  sunProtection: fc.boolean(),
});

const shift = (measure: Measure) => MEASURES.indexOf(measure) * 2;
const evidenceOf = (product: EngineProduct, measure: Measure) => (product.evidence >>> shift(measure)) & 3;
const withEvidence = (product: EngineProduct, measure: Measure, value: number): EngineProduct => ({
  ...product,
  evidence: (product.evidence & ~(3 << shift(measure))) | (value << shift(measure)),
});

/** Labels mixing actives, caution-list ingredients and plain fillers, to build random formulas from. */
const POOL = [
  'Water',
  'Glycerin',
  'Niacinamide',
  'Salicylic Acid',
  'Retinol',
  'Ascorbic Acid',
  'Caffeine',
  'Panthenol',
  'Kaolin',
  'Glycolic Acid',
  'Tranexamic Acid',
  'Parfum',
  'Alcohol Denat.',
  'Isopropyl Myristate',
  'Polysorbate 20',
  'Petrolatum',
  'Helianthus Annuus Seed Oil',
  'Cetearyl Alcohol',
  'Phenoxyethanol',
  'Xanthan Gum',
];
const ACTIVES = [
  'Niacinamide',
  'Salicylic Acid',
  'Retinol',
  'Ascorbic Acid',
  'Caffeine',
  'Azelaic Acid',
  'Urea',
];

function compiled(labels: readonly string[]): EngineProduct {
  return compileProduct(
    deriveProduct(rawProduct('prop', { name: 'Property', ingredients: labels.join(', ') })),
  );
}

describe('match score properties', () => {
  it('is an integer in 0..100, or null exactly when nothing can be said (no ingredient list)', () => {
    fc.assert(
      fc.property(concernsArb, productArb, skinTypeArb, (concerns, product, skinType) => {
        const result = score(concerns, product, skinType);
        if (!product.scorable) {
          assert.equal(result, null);
          return;
        }
        assert.ok(
          result !== null && Number.isInteger(result) && result >= 0 && result <= 100,
          String(result),
        );
      }),
    );
  });

  it('is deterministic, and a prepared scorer gives the same score', () => {
    fc.assert(
      fc.property(concernsArb, productArb, skinTypeArb, (concerns, product, skinType) => {
        const first = score(concerns, product, skinType);
        return (
          first === score(concerns, product, skinType) && first === createScorer(concerns, skinType)(product)
        );
      }),
    );
  });

  it('does not depend on the order of concerns', () => {
    fc.assert(
      fc.property(concernsArb, productArb, skinTypeArb, fc.integer(), (concerns, product, skinType, seed) => {
        const rotated = concerns.map((_, i) => concerns[(i + Math.abs(seed)) % concerns.length]!);
        const expected = score(concerns, product, skinType);
        return (
          score(concerns.toReversed(), product, skinType) === expected &&
          score(rotated, product, skinType) === expected
        );
      }),
    );
  });

  it('does not depend on the order of ingredients', () => {
    fc.assert(
      fc.property(
        fc.shuffledSubarray(POOL, { minLength: 1 }),
        someConcernsArb,
        skinTypeArb,
        (labels, concerns, skinType) => {
          const sorted = [...labels].sort();
          return score(concerns, compiled(labels), skinType) === score(concerns, compiled(sorted), skinType);
        },
      ),
    );
  });

  it('never drops when a product gains evidence for a concern of the scan', () => {
    fc.assert(
      fc.property(someConcernsArb, productArb, skinTypeArb, fc.nat(), (concerns, product, skinType, pick) => {
        const measure = concerns[pick % concerns.length]!.name;
        const evidence = evidenceOf(product, measure);
        fc.pre(evidence < 3);
        const scorable = { ...product, scorable: true };
        return (
          score(concerns, withEvidence(scorable, measure, evidence + 1), skinType)! >=
          score(concerns, scorable, skinType)!
        );
      }),
    );
  });

  it('never drops when an active for a concern of the scan is added to the ingredient list', () => {
    fc.assert(
      fc.property(
        fc.shuffledSubarray(POOL, { minLength: 1 }),
        fc.constantFrom(...ACTIVES),
        fc.nat(),
        someConcernsArb,
        skinTypeArb,
        (labels, active, at, concerns, skinType) => {
          const before = score(concerns, compiled(labels), skinType)!;
          const withActive = labels.toSpliced(at % (labels.length + 1), 0, active);
          return score(concerns, compiled(withActive), skinType)! >= before;
        },
      ),
    );
  });

  it('ranks a product addressing the worst concern above one addressing none', () => {
    fc.assert(
      fc.property(
        someConcernsArb,
        productArb,
        fc.integer({ min: 1, max: 3 }),
        skinTypeArb,
        (concerns, product, level, skinType) => {
          const worst = worstConcern(concerns);
          const addressesWorst = withEvidence({ ...product, scorable: true }, worst, level);
          let addressesNone = addressesWorst;
          for (const { name } of concerns) addressesNone = withEvidence(addressesNone, name, 0);
          return score(concerns, addressesNone, skinType)! < score(concerns, addressesWorst, skinType)!;
        },
      ),
    );
  });
});

function worstConcern(concerns: readonly Concern[]): Measure {
  return concerns.reduce((worst, concern) => (concern.severity > worst.severity ? concern : worst)).name;
}

describe('the maintenance score of a scan with no concern (property)', () => {
  it('never falls when a product gains barrier support or sun protection, or loses a caution flag', () => {
    fc.assert(
      fc.property(productArb, skinTypeArb, (product, skinType) => {
        fc.pre(product.scorable);
        const base = score([], product, skinType)!;
        const more = { ...product, barrier: Math.min(3, product.barrier + 1) };
        const sun = { ...product, sunProtection: true };
        const gentler = { ...product, flags: product.flags & ~0b11 };
        return (
          score([], more, skinType)! >= base &&
          score([], sun, skinType)! >= base &&
          score([], gentler, skinType)! >= base
        );
      }),
    );
  });

  it('is lower for a stated skin type the product does not suit', () => {
    fc.assert(
      fc.property(productArb, (product) => {
        fc.pre(product.scorable);
        const onlyDry = { ...product, skinTypes: 0b0001 };
        const fitting = score([], onlyDry, 'dry')!;
        const misfit = score([], onlyDry, 'oily')!;
        return fitting === 0 ? misfit === 0 : misfit < fitting;
      }),
    );
  });
});
