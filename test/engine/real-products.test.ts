import assert from 'node:assert/strict';
import { type DerivedProduct, deriveProduct } from '../../services/catalog/derive.ts';
import fixtures from '../fixtures/real-products.json' with { type: 'json' };
import { rawProduct } from '../support/raw-product.ts';

interface Expected {
  readonly fragrance_free: boolean;
  readonly alcohol_free: boolean;
  readonly fungal_acne_safe: boolean;
  readonly vegan?: boolean;
  readonly targets_include: readonly string[];
  readonly targets_exclude?: readonly string[];
  readonly key_ingredients?: readonly string[];
  readonly skin_types?: readonly string[];
}

function derive(product: (typeof fixtures.products)[number]): DerivedProduct {
  const { name, product_type, ingredients } = product;
  return deriveProduct(rawProduct(name, { name, product_type, ingredients }));
}

// The labels were typed from memory (see the fixture's `about`): they test derivation on realistic label
// shapes, not what those products contain today. Entries with a `source` were compared with it.
describe('real product labels (typed from memory)', () => {
  it('has at least 30 labels, and says how they were written', () => {
    assert.ok(fixtures.products.length >= 30);
    assert.match(fixtures.about, /typed from memory/i);
    const checked = fixtures.products.filter((product) => 'source' in product);
    assert.ok(checked.length > 0);
    for (const product of checked) {
      const { source } = product as { source: { url: string; checked: string; agrees: string } };
      assert.match(source.url, /^https:\/\//, product.name);
      assert.match(source.checked, /^\d{4}-\d{2}-\d{2}$/, product.name);
      assert.ok(source.agrees.length > 0, product.name);
    }
  });

  for (const product of fixtures.products) {
    const expected: Expected = product.expected;
    it(product.name, () => {
      const derived = derive(product);
      assert.ok(derived.parsed_ingredients.length > 0);
      assert.deepEqual(
        {
          fragrance_free: derived.attributes.fragrance_free,
          alcohol_free: derived.attributes.alcohol_free,
          fungal_acne_safe: derived.attributes.fungal_acne_safe,
        },
        {
          fragrance_free: expected.fragrance_free,
          alcohol_free: expected.alcohol_free,
          fungal_acne_safe: expected.fungal_acne_safe,
        },
      );
      if (expected.vegan !== undefined) assert.equal(derived.attributes.vegan, expected.vegan);
      for (const target of expected.targets_include)
        assert.ok(derived.targets.includes(target as never), target);
      for (const target of expected.targets_exclude ?? [])
        assert.ok(!derived.targets.includes(target as never), target);
      if (expected.targets_include.length === 0 && expected.targets_exclude === undefined) {
        assert.ok(derived.targets.length <= 1, `unexpected targets ${derived.targets.join(', ')}`);
      }
      if (expected.key_ingredients !== undefined)
        assert.deepEqual(derived.key_ingredients, expected.key_ingredients);
      if (expected.skin_types !== undefined) assert.deepEqual(derived.skin_types, expected.skin_types);
    });
  }
});
