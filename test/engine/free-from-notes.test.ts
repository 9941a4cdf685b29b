/**
 * A note in brackets that names what a free-from attribute excludes (`Witch Hazel (contains 14% alcohol)`):
 * the parser drops a note in words as shop copy, so the list's entries hold no alcohol, yet the label says
 * it does. Such a product is never claimed free of it (DESIGN: unknown, never "free from"); a note that says
 * what is absent, or a common name after a Latin one, changes nothing. Products are invented.
 */
import assert from 'node:assert/strict';
import { create } from '@bufbuild/protobuf';
import { ProductFilterSchema } from '../../gen/skinmatch/v1/catalog_types_pb.ts';
import { CatalogIndex } from '../../services/catalog/catalog-index.ts';
import { deriveProduct } from '../../services/catalog/derive.ts';
import { rawProduct } from '../support/raw-product.ts';

const derived = (ingredients: string) => deriveProduct(rawProduct('p', { ingredients }));

describe('notes in brackets that name an excluded ingredient', () => {
  it('alcohol or fragrance named in a note leaves the attribute unknown, and the note says why', () => {
    const cases: [string, 'alcohol_free' | 'fragrance_free', string][] = [
      ['Hamamelis Virginiana (Witch Hazel) Distillate (14% Alcohol)', 'alcohol_free', 'Alcohol'],
      ['Witch Hazel (contains 14% alcohol), Glycerin', 'alcohol_free', 'alcohol'],
      ['Water, Glycerin, Aloe Vera (preserved with alcohol)', 'alcohol_free', 'alcohol'],
      ['Water, Glycerin, Calendula Extract [in SD Alcohol 40], Panthenol', 'alcohol_free', 'SD Alcohol 40'],
      ['Water, Glycerin, Botanical Extract (with essential oils)', 'fragrance_free', 'with essential oils'],
      [
        'Water, Lavender Extract (lavandula angustifolia oil)',
        'fragrance_free',
        'lavandula angustifolia oil',
      ],
    ];
    for (const [ingredients, attribute, named] of cases) {
      const product = derived(ingredients);
      assert.equal(product.ingredients_status, 'listed', ingredients);
      assert.equal(product.attributes[attribute], null, ingredients);
      assert.ok(
        product.ingredients_note?.includes(`names "${named}"`),
        product.ingredients_note ?? ingredients,
      );
    }
  });

  it('a note of absence, or a common name after a Latin one, leaves the attributes as the entries say', () => {
    for (const ingredients of [
      'Water, Hamamelis Virginiana (Witch Hazel) Water (alcohol-free), Glycerin',
      'Water, Niacinamide (without parfum), Glycerin',
      'Water, Glycerin, Toner Base (0% alcohol)',
      'Aqua (Water), Lavandula Angustifolia (Lavender) Flower Extract, Citrus Aurantium Dulcis (Orange) Fruit Extract',
      'Aqua (Water), Rosmarinus Officinalis (Rosemary) Leaf Extract, Butyrospermum Parkii (Shea) Butter',
    ]) {
      const { attributes } = derived(ingredients);
      assert.deepEqual([attributes.fragrance_free, attributes.alcohol_free], [true, true], ingredients);
    }
  });

  it('recommend_products with free_from alcohol leaves the witch hazel toner out', () => {
    const index = new CatalogIndex([
      deriveProduct(rawProduct('toner', { ingredients: 'Witch Hazel (contains 14% alcohol), Niacinamide' })),
      deriveProduct(rawProduct('serum', { ingredients: 'Water, Niacinamide, Glycerin' })),
    ]);
    const filter = create(ProductFilterSchema, { freeFrom: ['alcohol'] });
    const { best } = index.recommend([{ name: 'redness', severity: 0.6 }], null, filter, 5);
    assert.deepEqual(
      best.map((ranked) => ranked.entry.product.product_id),
      ['serum'],
    );
  });
});
