/**
 * Brands and names as retailer exports write their punctuation (curly apostrophes, typographic dashes,
 * Unicode spaces) against what a person or an agent types on a keyboard: the brand filter, text search and
 * the "same product" check of recommendations compare them as one text.
 */
import assert from 'node:assert/strict';
import { create } from '@bufbuild/protobuf';
import { ProductFilterSchema } from '../../gen/skinmatch/v1/catalog_types_pb.ts';
import { CatalogIndex } from '../../services/catalog/catalog-index.ts';
import { deriveProduct, type RawProduct } from '../../services/catalog/derive.ts';
import { rawProduct } from '../support/raw-product.ts';

const CREAM =
  'Aqua, Glycerin, Cyclohexasiloxane, Squalane, Bis-PEG-18 Methyl Ether Dimethyl Silane, Sucrose Stearate, ' +
  'Stearyl Alcohol, Glyceryl Stearate, Phenoxyethanol';

/** How exports spell the apostrophe of a brand: ’ (most), ‘, ʼ, ´ and the backtick. */
const APOSTROPHES = ['\u2019', '\u2018', '\u02bc', '\u00b4', '`'];
const BRANDS = ["Kiehl's", "Paula's Choice", "L'Oréal Paris", "Burt's Bees"];

const record = (product_id: string, brand: string, name: string, ingredients = CREAM): RawProduct =>
  rawProduct(product_id, { name, brand, product_type: 'Moisturiser', country: 'US', ingredients });

const indexOf = (products: readonly RawProduct[]) => new CatalogIndex(products.map(deriveProduct));
const ids = (entries: readonly { product: { product_id: string } }[]) =>
  entries.map((e) => e.product.product_id);

/** The index's product ids for a text search, and for a brand filter, as the tools ask them. */
const asking = (index: CatalogIndex) => ({
  found: (query: string) => ids(index.search(query, undefined, undefined, 100)),
  brand: (asked: string) =>
    ids(
      index.recommend([], null, create(ProductFilterSchema, { brand: asked }), 100).best.map((b) => b.entry),
    ),
});

describe('the catalog index, punctuation as retailers and keyboards write it', () => {
  it('a brand typed with a straight apostrophe, or without one, finds the brand stored with any other, and back', () => {
    for (const brand of BRANDS) {
      const spellings = [brand, ...APOSTROPHES.map((mark) => brand.replace("'", mark))];
      const index = indexOf([
        ...spellings.map((spelling, i) => record(`b-${i}`, spelling, `Cream ${i}`)),
        record('other', brand.replace("'", ''), 'Cream without apostrophe'),
      ]);
      const expected = [...spellings.map((_, i) => `b-${i}`), 'other'];
      const { found } = asking(index);
      for (const asked of [...spellings, brand.replace("'", '')]) {
        const { best } = index.recommend([], null, create(ProductFilterSchema, { brand: asked }), 100);
        // The filter, like search, finds the brand written without its apostrophe, and back.
        assert.deepEqual(ids(best.map(({ entry }) => entry)).sort(), expected, asked);
        assert.deepEqual(found(asked), expected, `search ${asked}`);
        assert.deepEqual(found(brand.replace("'", '')), expected, 'search without apostrophe');
      }
    }
  });

  it('typographic dashes and Unicode spaces in a name or brand are the hyphen and space typed', () => {
    const index = indexOf([
      record('p-1', 'Dr.\u00a0Jart+', 'Cicapair\u2011Tiger Grass Color Correcting Treatment'),
      record('p-2', 'Dr.\u202fJart+', 'Cicapair \u2013 Tiger Grass Sleepair Intensive Mask'),
      record('p-3', 'La Roche\u2010Posay', 'Anti\u2014Ageing\u2009Cream'),
      record('p-4', 'Other', 'Tiger Grass & Centella'),
      record('p-5', 'Other', 'Tiger Grass and Centella'),
    ]);
    const { found, brand } = asking(index);
    assert.deepEqual(found('cicapair-tiger'), ['p-1']);
    assert.deepEqual(found('dr. jart+'), ['p-1', 'p-2']);
    assert.deepEqual(found('La Roche-Posay anti-ageing cream'), ['p-3']);
    assert.deepEqual(brand('Dr. Jart+').sort(), ['p-1', 'p-2']);
    assert.deepEqual(brand('la roche-posay'), ['p-3']);
    // `&` and `and` are other words, not punctuation of the same word.
    assert.deepEqual(found('grass & centella'), ['p-4']);
    assert.deepEqual(found('grass and centella'), ['p-5']);
  });

  it("accents a keyboard leaves out: L'Oreal finds L'Oréal, Creme finds Crème; other scripts keep their marks", () => {
    const index = indexOf([
      record('p-1', 'L\u2019Or\u00e9al Paris', 'Revitalift Cr\u00e8me de Jour'),
      record('p-2', 'L\u2019Ore\u0301al Paris', 'Age Perfect Cre\u0300me'),
      record('p-3', 'Nu\u00e0nce', 'S\u00e9rum \u00c9clat'),
      record('p-4', '\u041c\u043e\u0439 \u0431\u0440\u0435\u043d\u0434', 'Cream'),
      record('p-5', '\u041c\u043e\u0438 \u0431\u0440\u0435\u043d\u0434', 'Cream'),
    ]);
    const { found, brand } = asking(index);
    assert.deepEqual(brand("L'Oreal Paris").sort(), ['p-1', 'p-2']);
    assert.deepEqual(brand('L\u2019Or\u00e9al Paris').sort(), ['p-1', 'p-2']);
    assert.deepEqual(brand('NUANCE'), ['p-3']);
    assert.deepEqual(found('creme'), ['p-1', 'p-2']);
    assert.deepEqual(found('serum eclat'), ['p-3']);
    // Й and И are two letters of Russian, not one letter with and without an accent.
    assert.deepEqual(brand('\u041c\u043e\u0439 \u0431\u0440\u0435\u043d\u0434'), ['p-4']);
  });

  it('the same product listed by two markets, one with a curly apostrophe, fills one place', () => {
    const products = [
      record('kiehls-us-050', "Kiehl's", "Kiehl's Ultra Facial Cream 50ml"),
      record('kiehls-uk-125', 'Kiehl\u2019s', 'Kiehl\u2019s Ultra Facial Cream 125\u00a0ml'),
      record('kiehls-fr-028', 'KIEHL\u02bcS', 'KIEHL\u02bcS ULTRA FACIAL CREAM 28 ML'),
      record('burts-050', 'Burt\u2019s Bees', 'Sensitive Day\u2011Lotion 50ml'),
      record('burts-100', "Burt's Bees", 'Sensitive Day-Lotion 100ml'),
    ];
    const { best } = indexOf(products).recommend([{ name: 'redness', severity: 0.5 }], null, undefined, 5);
    assert.deepEqual(ids(best.map(({ entry }) => entry)).sort(), ['burts-050', 'kiehls-fr-028']);
  });
});
