/**
 * What import stores from a line of a feed as people read it: a quoted name wrapped with a CRLF, zero-width
 * characters spreadsheets leave in names and brands, and an ingredient written the old way round
 * (`Extract (Camellia Sinensis, Leaf)`). Brands and products are invented.
 */
import assert from 'node:assert/strict';
import { readCsv } from '../../services/catalog/catalog-csv.ts';
import { readJsonLines } from '../../services/catalog/catalog-json.ts';
import type { RecordResult } from '../../services/catalog/catalog-records.ts';
import { deriveProduct, type RawProduct } from '../../services/catalog/derive.ts';
import { readInci } from '../../services/catalog/inci/parse.ts';
import { rawProduct } from '../support/raw-product.ts';

const HEADER = 'product_id,name,brand,product_type,country,ingredients,skin_types,vegan,cruelty_free';

function products(records: readonly RecordResult[]): RawProduct[] {
  return records.map((record) => {
    assert.ok('product' in record, JSON.stringify(record));
    return record.product;
  });
}

describe('display text and names as import stores them', () => {
  it('a line break inside a quoted name is one space, a CRLF too', () => {
    const text = [
      HEADER,
      'e-4,"Multi\r\nLine Name 🌸",ブランド,serum,JP,"Aqua\r\nGlycerin",,,',
      'e-5,"Two\nLines",B,serum,JP,Aqua,,,',
    ].join('\r\n');
    assert.deepEqual(
      products(readCsv(text)).map((product) => product.name),
      ['Multi Line Name 🌸', 'Two Lines'],
    );
  });

  it('zero-width characters leave names and brands; an emoji sequence keeps its joiner', () => {
    const lines = [
      {
        product_id: 'e-6',
        name: 'Zero\u200bWidth Se\u00adrum\u2060',
        brand: 'Br\u200band\ufeff',
        ingredients: 'Aqua',
      },
      {
        product_id: 'e-7',
        name: 'Lab \u{1F469}\u200d\u{1F52C} Serum',
        brand: 'Jo\u200dint',
        ingredients: 'Aqua',
      },
      { product_id: 'e-8', name: 'نرم\u200cافزار', brand: null, ingredients: 'Aqua' },
    ];
    const read = products(readJsonLines(lines.map((line) => JSON.stringify(line)).join('\n')));
    assert.deepEqual(
      read.map((product) => [product.name, product.brand]),
      [
        ['ZeroWidth Serum', 'Brand'],
        ['Lab \u{1F469}\u200d\u{1F52C} Serum', 'Joint'],
        ['نرم\u200cافزار', null],
      ],
    );
  });

  it('a head word before its plant in parentheses is the plant’s name: the green-tea active stays', () => {
    const text = 'Water, Extract (Camellia Sinensis, Leaf), Salicylic Acid, Leaf Extract (Camellia Sinensis)';
    assert.deepEqual(
      readInci(text).ingredients.map((ingredient) => [ingredient.label, ingredient.name]),
      [
        ['Water', 'water'],
        ['Extract (Camellia Sinensis, Leaf)', 'camellia sinensis leaf extract'],
        ['Salicylic Acid', 'salicylic acid'],
      ],
    );
    const product = deriveProduct(
      rawProduct('e-3', { ingredients: 'Water, Extract (Camellia Sinensis, Leaf), Glycerin' }),
    );
    assert.deepEqual(product.key_ingredients, []);
    assert.ok((product.evidence.redness ?? 0) > 0, JSON.stringify(product.evidence));
    assert.deepEqual(
      readInci(
        'Water (Aqua), Butter (Shea), Extract (Green Tea), Rosa Damascena Flower Water',
      ).ingredients.map((ingredient) => ingredient.name),
      [
        'water',
        'butyrospermum parkii butter',
        'camellia sinensis leaf extract',
        'rosa damascena flower water',
      ],
    );
  });
});
