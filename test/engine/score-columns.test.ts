import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { SkinType } from '../../services/catalog/derive.ts';
import {
  type EngineProduct,
  NO_SCORE,
  prepareScan,
  scoreColumns,
  scorePrepared,
  toColumns,
} from '../../services/match/engine/index.ts';
import { MEASURES } from '../../services/shared/measures.ts';

const concernsArb = fc.array(
  fc.record({
    name: fc.constantFrom(...MEASURES),
    severity: fc.double({ min: 0, max: 1, noNaN: true }),
  }),
  { maxLength: 12 },
);
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

describe('scoring a catalog in columns', () => {
  it('gives every product exactly the score scorePrepared gives it', () => {
    fc.assert(
      fc.property(
        concernsArb,
        skinTypeArb,
        fc.array(productArb, { minLength: 1, maxLength: 60 }),
        (concerns, skinType, products) => {
          const scan = prepareScan(concerns, skinType);
          const scores = scoreColumns(scan, toColumns(products));
          const expected = products.map((product) => scorePrepared(scan, product) ?? NO_SCORE);
          assert.deepEqual([...scores], expected);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('gives a scan without concerns maintenance scores, and an unscorable product never a score', () => {
    const products: EngineProduct[] = [
      {
        evidence: 0b11,
        targets: 1,
        flags: 0,
        skinTypes: 0,
        scorable: true,
        barrier: 1,
        sunProtection: false,
      },
      {
        evidence: 0b11,
        targets: 1,
        flags: 0,
        skinTypes: 0,
        scorable: false,
        barrier: 3,
        sunProtection: true,
      },
    ];
    // Gentle 2 + barrier 1 of 8 points: 37.5 → 38.
    assert.deepEqual([...scoreColumns(prepareScan([]), toColumns(products))], [38, NO_SCORE]);
    const acne = prepareScan([{ name: 'acne', severity: 1 }]);
    assert.deepEqual([...scoreColumns(acne, toColumns(products))], [100, NO_SCORE]);
  });
});
