/**
 * Claims a product's own ingredient list contradicts: a source's `vegan: true` beside carmine, lanolin or
 * beeswax, a name that says fragrance-free beside parfum. The attributes follow the list, never the claim
 * (DESIGN: unknown, never "free from"), and the import says which claim and which ingredient.
 * Brands and products are invented.
 */
import assert from 'node:assert/strict';
import { create } from '@bufbuild/protobuf';
import { ProductFilterSchema } from '../../gen/skinmatch/v1/catalog_types_pb.ts';
import { CatalogIndex } from '../../services/catalog/catalog-index.ts';
import { contradictedClaims, deriveProduct } from '../../services/catalog/derive.ts';
import { rawProduct } from '../support/raw-product.ts';

const balm = rawProduct('c-2', {
  name: 'Vegan Glow Balm',
  product_type: 'moisturizer',
  ingredients: 'Aqua, Carmine (CI 75470), Lanolin, Beeswax, Niacinamide',
  vegan: true,
});

describe('claims the ingredient list contradicts', () => {
  it('a stated vegan: true beside animal-derived ingredients is vegan false, with a warning naming them', () => {
    const product = deriveProduct(balm);
    assert.equal(product.attributes.vegan, false);
    assert.deepEqual(contradictedClaims(product), [
      'vegan: true is contradicted by its ingredients: Carmine (CI 75470), Lanolin, Beeswax (animal-derived): imported as vegan false',
    ]);
  });

  it('names that say fragrance-free, alcohol-free or vegan are checked against the list', () => {
    const claims = (name: string, ingredients: string) =>
      contradictedClaims(deriveProduct(rawProduct('p', { name, ingredients })));
    assert.deepEqual(
      claims('Fragrance-Free Calming Cream', 'Aqua, Glycerin, Niacinamide, Parfum, Linalool'),
      [
        'the name says fragrance-free ("Fragrance-Free"), but its ingredients list Parfum, Linalool: fragrance_free false',
      ],
    );
    assert.deepEqual(claims('Alcohol Free Toner', 'Aqua, Alcohol Denat., Niacinamide'), [
      'the name says alcohol-free ("Alcohol Free"), but its ingredients list Alcohol Denat: alcohol_free false',
    ]);
    assert.deepEqual(claims('Baume Végan', 'Aqua, Cera Alba'), [
      'the name says vegan ("Végan"), but its ingredients list Cera Alba: vegan false',
    ]);
    assert.deepEqual(claims('Unscented Lotion', 'Aqua, Glycerin, Cetearyl Alcohol'), []);
    assert.deepEqual(claims('Calming Cream', 'Aqua, Parfum'), []);
  });

  it('recommend_products does not pass it through vegan: true', () => {
    const clean = rawProduct('c-clean', {
      product_type: 'moisturizer',
      ingredients: 'Aqua, Niacinamide, Glycerin',
      vegan: true,
    });
    const index = new CatalogIndex([deriveProduct(balm), deriveProduct(clean)]);
    const found = index
      .recommend([{ name: 'redness', severity: 0.6 }], null, create(ProductFilterSchema, { vegan: true }), 10)
      .best.map(({ entry }) => entry.product.product_id);
    assert.deepEqual(found, ['c-clean']);
  });
});
