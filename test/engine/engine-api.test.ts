import assert from 'node:assert/strict';
import {
  compareMatches,
  compileProduct,
  type EngineProduct,
  matchesConcerns,
  score,
} from '../../services/match/engine/index.ts';
import type { Concern } from '../../services/shared/measures.ts';

const facts = {
  evidence: { acne: 5, redness: 1, dullness: 2 },
  targets: ['acne', 'dullness'] as const,
  flags: ['fragrance', 'rich_texture'] as const,
  skin_types: ['dry', 'sensitive'] as const,
  parsed_ingredients: [{ label: 'Water', name: 'water', mayContain: false }],
};

describe('matching engine API', () => {
  it('compiles a product into packed evidence capped at 3 and bitmasks', () => {
    assert.deepEqual(compileProduct(facts), {
      // acne 3 (bits 0–1), redness 1 (bits 2–3), dullness 2 (bits 18–19).
      evidence: 3 | (1 << 2) | (2 << 18),
      targets: 1 | (1 << 9),
      flags: 1 | (1 << 4),
      skinTypes: 1,
      scorable: true,
      // Derived before the maintenance match: no barrier support, no UV filter.
      barrier: 0,
      sunProtection: false,
    });
    assert.equal(compileProduct({ ...facts, parsed_ingredients: [] }).scorable, false);
    const supported = compileProduct({
      ...facts,
      barrier_support: ['ceramides', 'cholesterol', 'glycerin', 'panthenol'],
      sun_protection: true,
    });
    assert.deepEqual([supported.barrier, supported.sunProtection], [3, true]);
  });

  it('refuses evidence that is not a non-negative integer', () => {
    assert.throws(() => compileProduct({ ...facts, evidence: { acne: 1.5 } }), RangeError);
    assert.throws(() => compileProduct({ ...facts, evidence: { acne: -1 } }), RangeError);
  });

  const product: EngineProduct = compileProduct({ ...facts, flags: [] });

  it('refuses unknown concerns, non-finite severities and unknown skin types', () => {
    assert.throws(
      () => score([{ name: 'freckles', severity: 0.5 } as unknown as Concern], product),
      TypeError,
    );
    assert.throws(() => score([{ name: 'acne', severity: Number.NaN }], product), RangeError);
    assert.throws(() => score([{ name: 'acne', severity: Number.POSITIVE_INFINITY }], product), RangeError);
    assert.throws(() => score([{ name: 'acne', severity: 0.5 }], product, 'sensitive' as never), TypeError);
  });

  it('clamps severities into 0..1 and counts a repeated concern once, at its worst', () => {
    const acneAndRedness = (acne: number): Concern[] => [
      { name: 'acne', severity: acne },
      { name: 'redness', severity: 0.5 },
    ];
    assert.equal(score(acneAndRedness(7), product), score(acneAndRedness(1), product));
    assert.equal(score(acneAndRedness(-3), product), score(acneAndRedness(0), product));
    const repeated: Concern[] = [...acneAndRedness(0.2), { name: 'acne', severity: 0.9 }];
    assert.equal(score(repeated, product), score(acneAndRedness(0.9), product));
  });

  it('lists matched concerns worst first, whatever the input order', () => {
    const concerns: Concern[] = [
      { name: 'dullness', severity: 0.7 },
      { name: 'redness', severity: 0.9 },
      { name: 'acne', severity: 0.7 },
    ];
    assert.deepEqual(matchesConcerns(concerns, product), ['acne', 'dullness']);
    assert.deepEqual(matchesConcerns(concerns.toReversed(), product), ['acne', 'dullness']);
  });

  it('ranks by score, nulls last, ties by product_id', () => {
    const ranked = [
      { product_id: 'b', match_score: 50 },
      { product_id: 'c', match_score: null },
      { product_id: 'a', match_score: 50 },
      { product_id: 'd', match_score: 90 },
      { product_id: 'e', match_score: 0 },
    ].sort(compareMatches);
    assert.deepEqual(
      ranked.map((item) => item.product_id),
      ['d', 'a', 'b', 'e', 'c'],
    );
  });
});
