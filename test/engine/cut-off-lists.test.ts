/**
 * Ingredient lists a retailer cut short (`Aqua, Glycerin, Niacinami…`, `…, Niacinamide, etc.`): what the
 * cut left out may be fragrance or alcohol, so such a list cannot vouch for a free-from attribute (DESIGN:
 * unknown, never "free from"). What it does list still counts. Brands and products are invented.
 */
import assert from 'node:assert/strict';
import { create } from '@bufbuild/protobuf';
import { ProductFilterSchema } from '../../gen/skinmatch/v1/catalog_types_pb.ts';
import { CatalogIndex } from '../../services/catalog/catalog-index.ts';
import { deriveProduct } from '../../services/catalog/derive.ts';
import { rawProduct } from '../support/raw-product.ts';

/** The shapes a cut takes: an ellipsis (one character or dots) at the end or in the middle, `etc.`, `and more`. */
const CUT = [
  'Aqua, Glycerin, Salicylic Acid, Niacinami…',
  'Aqua, Glycerin, Salicylic Acid, Niacinamide…',
  'Aqua, Glycerin, Salicylic Acid, Niacinamide...',
  'Aqua, Glycerin, Salicylic Acid, Niacinamide, ...',
  'Aqua, Glycerin, Salicylic Acid, Niacinamide . . .',
  'Aqua, Glycerin … Salicylic Acid, Niacinamide',
  'Aqua, Glycerin, Salicylic Acid, Niacinamide ⋯',
  'Aqua, Glycerin, Salicylic Acid, Niacinamide, etc.',
  'Aqua, Glycerin, Salicylic Acid, Niacinamide etc',
  'Aqua, Glycerin, Salicylic Acid, Niacinamide and more',
  'Aqua, Glycerin, Salicylic Acid, Niacinamide & more.',
  'Aqua, Glycerin, Salicylic Acid, Niacinamide (and more)',
];

const attributes = (ingredients: string) => deriveProduct(rawProduct('p', { ingredients })).attributes;

describe('ingredient lists cut short', () => {
  it('no free-from attribute is true, and the note says the list is cut off', () => {
    for (const ingredients of CUT) {
      const product = deriveProduct(rawProduct('p', { ingredients }));
      const { fragrance_free, alcohol_free, fungal_acne_safe } = product.attributes;
      assert.deepEqual([fragrance_free, alcohol_free, fungal_acne_safe], [null, null, null], ingredients);
      assert.match(product.ingredients_note ?? '', /cut off/, ingredients);
    }
  });

  it('what a cut list names still counts, and a whole list still vouches', () => {
    assert.equal(attributes('Aqua, Parfum, Glycerin, Niacinami…').fragrance_free, false);
    assert.equal(attributes('Aqua, Alcohol Denat., Glycerin etc.').alcohol_free, false);
    const whole = attributes('Aqua, Glycerin, Salicylic Acid, Niacinamide');
    assert.deepEqual([whole.fragrance_free, whole.alcohol_free], [true, true]);
    // A list's closing period is no ellipsis.
    const dotted = attributes('Aqua, Glycerin, Sodium Hyaluronate, Tocopherol.');
    assert.deepEqual([dotted.fragrance_free, dotted.alcohol_free], [true, true]);
    // A drug-facts panel's dot leaders are no ellipsis.
    const panel = attributes(
      'Drug Facts\nActive ingredients Purpose\nZinc Oxide 18.9% ........ Sunscreen\n' +
        'Inactive ingredients: Water, Caprylyl Caprylate, Glycerin',
    );
    assert.deepEqual([panel.fragrance_free, panel.alcohol_free], [true, true]);
  });

  it('recommend_products keeps a cut list out of free_from', () => {
    const products = CUT.map((ingredients, i) => deriveProduct(rawProduct(`cut-${i}`, { ingredients })));
    const whole = deriveProduct(
      rawProduct('whole', { ingredients: 'Aqua, Glycerin, Salicylic Acid, Niacinamide' }),
    );
    const found = new CatalogIndex([...products, whole])
      .recommend(
        [{ name: 'acne', severity: 0.8 }],
        null,
        create(ProductFilterSchema, { freeFrom: ['fragrance', 'alcohol'] }),
        100,
      )
      .best.map(({ entry }) => entry.product.product_id);
    assert.deepEqual(found, ['whole']);
  });
});
