/**
 * The brand filter's key (services/catalog/filter-keys.ts): a brand's letter and digit words run together,
 * however its punctuation, hyphens, apostrophes, spaces, `&` and trademark signs were written by the catalog
 * or the caller.
 */
import assert from 'node:assert/strict';
import { create } from '@bufbuild/protobuf';
import { ProductFilterSchema } from '../../gen/skinmatch/v1/catalog_types_pb.ts';
import { CatalogIndex } from '../../services/catalog/catalog-index.ts';
import { deriveProduct } from '../../services/catalog/derive.ts';
import { brandKey } from '../../services/catalog/filter-keys.ts';
import { rawProduct } from '../support/raw-product.ts';

/** Each group: spellings of one brand, as catalogs and callers write it. */
const SAME: readonly (readonly string[])[] = [
  ['Verdant & Vale', 'Verdant and Vale', 'VERDANT&VALE', 'verdant  &  vale'],
  ['Quillon & Co', 'Quillon & Co.', 'Quillon and Co.', 'QUILLON & CO'],
  ['Maison Célestine', 'Maison-Célestine', 'Maison Celestine', 'maison\u00a0ce\u0301lestine'],
  [
    'La Roche-Posay',
    'La Roche Posay',
    'La Roche\u2010Posay',
    'LA ROCHE–POSAY',
    'la roche-posay',
    'Laroche Posay',
  ],
  ["Paula's Choice", 'Paula’s Choice', 'Paulas Choice', 'PAULA`S CHOICE'],
  ['Oku Garden', 'Oku Garden™', 'Oku Garden ™', 'OKU GARDEN\u2122'],
  ['Neutrogena', 'Neutrogena®', 'NEUTROGENA ®', 'Neutrogena©'],
  ['Dr. Jart+', 'Dr Jart', 'Dr.\u202fJart+', 'ＤＲ．ＪＡＲＴ＋'],
  // Latin letters no decomposition takes apart, typed as keyboards without them write them.
  ['Tołpa', 'Tolpa', 'TOŁPA'],
  ['Æsop', 'Aesop', 'AESOP', 'æsop'],
  ['Søstrene Grene', 'Sostrene Grene', 'SØSTRENE GRENE'],
  ['Weißenhof', 'Weissenhof', 'WEISSENHOF', 'WEIẞENHOF'],
  ['Işık', 'Isik'],
  ["L'Oréal Paris", 'L’Oreal Paris', 'Loréal Paris', "l'oreal   paris", 'L Oreal Paris', 'LOREAL PARIS'],
  ['CeraVe', 'Cera Ve', 'CERAVE', 'Cera-Ve'],
  ['SkinCeuticals', 'Skin Ceuticals', 'skinceuticals'],
];

/** Brands that differ by a letter, a word or their order: never one brand. */
const APART: readonly [string, string][] = [
  ['Verdant & Vale', 'Vale & Verdant'],
  ['Verdant & Vale', 'Verdant Vale'],
  ['Quillon & Co', 'Quillon'],
  ['Oku Garden', 'Oku Gardens'],
  ['Oku Garden™', 'Oku GardenTM'],
  ['Мой бренд', 'Мои бренд'],
  ['La Roche-Posay', 'Roche Posay'],
  ["L'Oréal Paris", "L'Oréal"],
];

describe('the brand filter’s key', () => {
  it('punctuation, hyphens, apostrophes, spaces, & and trademark signs as exports and callers write them are one brand', () => {
    for (const group of SAME) {
      for (const spelling of group) assert.equal(brandKey(spelling), brandKey(group[0]), spelling);
    }
  });

  it('text search reads those letters as the filters do, in a query and in the catalog', () => {
    const index = new CatalogIndex([
      deriveProduct(rawProduct('p1', { name: 'Tołpa Dermo Face Sebio Gel', brand: 'Tołpa' })),
      deriveProduct(rawProduct('p2', { name: 'Aesop Parsley Seed Cleanser', brand: 'Aesop' })),
    ]);
    const found = (query: string) =>
      index.search(query, undefined, undefined, 10).map((entry) => entry.product.product_id);
    assert.deepEqual(found('tolpa sebio'), ['p1']);
    assert.deepEqual(found('TOŁPA'), ['p1']);
    assert.deepEqual(found('Æsop parsley'), ['p2']);
  });

  it('another letter, word or order is another brand', () => {
    for (const [a, b] of APART) assert.notEqual(brandKey(a), brandKey(b), `${a} / ${b}`);
  });

  it('the catalog index keeps every spelling of the brand asked, however the catalog wrote it', () => {
    const stored = SAME.flatMap((group, g) => group.map((brand, i) => ({ id: `b${g}-${i}`, brand })));
    const index = new CatalogIndex(
      stored.map(({ id, brand }) => deriveProduct(rawProduct(id, { name: `Cream ${id}`, brand }))),
    );
    SAME.forEach((group, g) => {
      const expected = group.map((_, i) => `b${g}-${i}`);
      for (const asked of group) {
        const found = index
          .search('', create(ProductFilterSchema, { brand: asked }), undefined, 100)
          .map((entry) => entry.product.product_id);
        assert.deepEqual(found, expected, asked);
      }
    });
  });
});
