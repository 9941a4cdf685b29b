/**
 * Recommendations from a catalog shaped like a real retailer export, not the demo catalog: product types as
 * retailers write them, the same product in several sizes and markets. Labels are real products' INCI lists
 * (typed from memory, shortened).
 */
import assert from 'node:assert/strict';
import { create } from '@bufbuild/protobuf';
import { ProductFilterSchema } from '../../gen/skinmatch/v1/catalog_types_pb.ts';
import { CatalogIndex } from '../../services/catalog/catalog-index.ts';
import { deriveProduct, type RawProduct } from '../../services/catalog/derive.ts';
import { PRODUCT_TYPES } from '../../services/match/match-input.ts';
import { rawProduct } from '../support/raw-product.ts';

const record = (product_id: string, product_type: string, name: string, ingredients: string): RawProduct =>
  rawProduct(product_id, { name, brand: 'Retail Brand', product_type, country: 'GB', ingredients });

const CREAM =
  'Aqua/Water/Eau, Glycerin, Caprylic/Capric Triglyceride, Niacinamide, Cetearyl Alcohol, Ceramide NP, ' +
  'Sodium Hyaluronate, Cholesterol, Phenoxyethanol';
const SUN =
  'Aqua / Water / Eau, Diisopropyl Sebacate, Ethylhexyl Triazone, Bis-Ethylhexyloxyphenol Methoxyphenyl ' +
  'Triazine, Butyl Methoxydibenzoylmethane, Niacinamide, Glycerin, Tocopherol, Phenoxyethanol';

/** Types written in real exports, and the one enumeration value (or none) a person filtering means. */
const RETAILER_TYPES: readonly [string, string | null][] = [
  ['Moisturiser', 'moisturizer'],
  ['Face Moisturizer', 'moisturizer'],
  ['Anti-Ageing Moisturiser', 'moisturizer'],
  ['Face Cream', 'moisturizer'],
  ['Night Cream', 'moisturizer'],
  ['Gesichtscreme', 'moisturizer'],
  ['Crème hydratante', 'moisturizer'],
  ['Sunscreen SPF 50', 'sunscreen'],
  ['Sun Cream', 'sunscreen'],
  ['Face Sunscreen', 'sunscreen'],
  ['Sun Care', 'sunscreen'],
  ['Sonnencreme LSF 50', 'sunscreen'],
  ['Face Serum', 'serum'],
  ['Ampoule', 'serum'],
  ['Essence', 'serum'],
  ['Booster', 'serum'],
  ['Eye Cream', 'eye_care'],
  ['Eye Serum', 'eye_care'],
  ['Creamy Eye Treatment', 'eye_care'],
  ['Augencreme', 'eye_care'],
  ['Spot Treatment', 'treatment'],
  ['Pimple Patch', 'treatment'],
  ['Facial Cleanser', 'cleanser'],
  ['Face Wash', 'cleanser'],
  ['Micellar Water', 'cleanser'],
  ['Cleansing Balm', 'cleanser'],
  ['Démaquillant', 'cleanser'],
  ['Exfoliant', 'exfoliator'],
  ['Face Scrub', 'exfoliator'],
  ['Peeling Solution', 'exfoliator'],
  ['Face Mask', 'mask'],
  ['Sleeping Mask', 'mask'],
  ['Toning Lotion', 'toner'],
  ['Glow Tonic', 'toner'],
  ['Lotion', 'moisturizer'],
  ['Balm', 'moisturizer'],
  ['Face Oil', 'moisturizer'],
  ['Face Mist', 'toner'],
  ['Gel', null],
  ['Setting Mist', null],
  ['Body Mist', null],
  ['Lip Balm', null],
  ['Hand Cream', null],
  ['Body Lotion', null],
];

function kept(products: readonly RawProduct[], productType: string): string[] {
  const index = new CatalogIndex(products.map(deriveProduct));
  return index
    .recommend([{ name: 'redness', severity: 0.5 }], null, create(ProductFilterSchema, { productType }), 100)
    .best.map(({ entry }) => entry.product.product_id)
    .sort();
}

describe('recommendations from a retailer-shaped catalog', () => {
  it('a product_type filter keeps the types retailers write for it, in any spelling or language, and no other', () => {
    const products = RETAILER_TYPES.map(([type], i) => record(`r-${i}`, type, `Product ${i}`, CREAM));
    for (const kind of PRODUCT_TYPES) {
      const expected = RETAILER_TYPES.flatMap(([, means], i) => (means === kind ? [`r-${i}`] : [])).sort();
      assert.deepEqual(kept(products, kind), expected, kind);
    }
  });

  it('a product whose type names no kind is found by the kind its name clearly says, and never by a weak word', () => {
    /** Types retailers leave empty or too vague, names as sold, and what a person filtering means. */
    const untyped: readonly [string | null, string, string | null][] = [
      [null, 'Ultra Facial Cream', 'moisturizer'],
      ['', 'Hydrating Face Mist', 'toner'],
      ['Skincare', 'Vitamin C Serum 30ml', 'serum'],
      ['Gel', 'Gentle Foaming Cleanser', 'cleanser'],
      ['Beauty', 'Snail Mucin 96% Power Repairing Essence', 'serum'],
      [null, 'Niacinamide 10% Booster', 'serum'],
      [null, 'Mineral Sunscreen SPF 50', 'sunscreen'],
      [null, 'Advanced Night Repair', null],
      [null, 'Dark Spot Corrector', null],
      [null, 'Hydrating Drops', null],
      [null, 'Lip Sleeping Mask', null],
      ['Lip Balm', 'Overnight Mask', null],
      [null, 'Makeup Setting Mist', null],
      // A type that names a kind is kept over the name.
      ['Eye Cream', 'Ultra Facial Cream', 'eye_care'],
      ['Toner', 'Hydrating Serum Toner', 'toner'],
    ];
    const products = untyped.map(([type, name], i) =>
      rawProduct(`u-${i}`, { name, product_type: type, ingredients: CREAM }),
    );
    for (const kind of PRODUCT_TYPES) {
      const expected = untyped.flatMap(([, , means], i) => (means === kind ? [`u-${i}`] : [])).sort();
      assert.deepEqual(kept(products, kind), expected, kind);
    }
  });

  it('a type naming two kinds is found by both filters: a moisturiser with SPF is a moisturizer and a sunscreen', () => {
    const products = [
      record('day', 'Moisturiser SPF 30', 'Daily Moisture SPF 30', SUN),
      record('tinted', 'Day Cream SPF 15', 'Tinted Day Cream SPF 15', SUN),
      record('sun', 'Sunscreen SPF 50', 'Invisible Fluid SPF 50+', SUN),
    ];
    assert.deepEqual(kept(products, 'moisturizer'), ['day', 'tinted']);
    assert.deepEqual(kept(products, 'sunscreen'), ['day', 'sun', 'tinted']);
  });

  it('the same product in several sizes or markets fills one of the five places, under its first product_id', () => {
    const products = [
      // One cream sold in three sizes and re-listed by a second market in capitals: one product.
      record('cream-050', 'Moisturiser', 'Ceramide Cream 50ml', CREAM),
      record('cream-100', 'Moisturiser', 'Ceramide Cream 100 ml', CREAM),
      record('cream-340', 'Moisturiser', 'Ceramide Cream (340g)', CREAM),
      record('cream-us', 'Face Moisturizer', 'Ceramide Cream 1.7 fl oz', CREAM.toUpperCase()),
      // Four other creams scoring the same or less: all of them belong in the five.
      record('other-1', 'Moisturiser', 'Barrier Cream', CREAM),
      record('other-2', 'Moisturiser', 'Night Cream', `${CREAM}, Parfum`),
      record('other-3', 'Moisturiser', 'Gel Cream', 'Aqua, Glycerin, Allantoin, Phenoxyethanol'),
      record('other-4', 'Moisturiser', 'Rich Cream', 'Aqua, Glycerin, Petrolatum, Phenoxyethanol'),
    ];
    const index = new CatalogIndex(products.map(deriveProduct));
    const { best, candidates } = index.recommend([{ name: 'redness', severity: 0.6 }], null, undefined, 5);
    assert.equal(candidates, products.length);
    const ids = best.map(({ entry }) => entry.product.product_id);
    assert.deepEqual(new Set(ids).size, 5);
    assert.deepEqual(ids.slice(0, 2), ['cream-050', 'other-1'], 'equal scores keep product_id order');
    assert.deepEqual(
      ids.filter((id) => id.startsWith('cream')),
      ['cream-050'],
    );
    assert.deepEqual(ids.slice(2).sort(), ['other-2', 'other-3', 'other-4']);
  });

  it('a product of the same name with another formula is another product, listed on its own', () => {
    const products = [
      record('cream-gb', 'Moisturiser', 'Ceramide Cream 50ml', CREAM),
      record('cream-fr', 'Moisturiser', 'Ceramide Cream 50ml', `${CREAM}, Parfum, Linalool`),
    ];
    const index = new CatalogIndex(products.map(deriveProduct));
    const { best } = index.recommend([{ name: 'redness', severity: 0.6 }], null, undefined, 5);
    assert.deepEqual(
      best.map(({ entry }) => entry.product.product_id),
      ['cream-gb', 'cream-fr'],
    );
  });
});
