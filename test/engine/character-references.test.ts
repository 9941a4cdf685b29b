/**
 * Character references as product pages and rich-text editors write them (TinyMCE writes `&hellip;`,
 * `&shy;`, `&dagger;` by name), in ingredient lists and in names: decoded to what a person reads, and a
 * reference to a character no text holds (a control, a direction override, half a surrogate pair) never
 * stored. Brands and products are invented.
 */
import assert from 'node:assert/strict';
import { readCsv } from '../../services/catalog/catalog-csv.ts';
import { readJsonLines } from '../../services/catalog/catalog-json.ts';
import { deriveProduct } from '../../services/catalog/derive.ts';
import { rawProduct } from '../support/raw-product.ts';

const derive = (ingredients: string) => deriveProduct(rawProduct('p', { ingredients }));
const labels = (ingredients: string) => derive(ingredients).parsed_ingredients.map((i) => i.label);

describe('character references in catalog text', () => {
  it('a list cut short with &hellip; vouches for no free-from attribute, as one cut with … does', () => {
    const product = derive('Aqua, Glycerin, Niacinamide, Butylene Glycol&hellip;');
    const { fragrance_free, alcohol_free, fungal_acne_safe } = product.attributes;
    assert.deepEqual([fragrance_free, alcohol_free, fungal_acne_safe], [null, null, null]);
    assert.equal(
      product.ingredients_note,
      'the list is cut off ("…"): fragrance_free, alcohol_free, fungal_acne_safe unknown',
    );
  });

  it('&shy; inside a name does not split it at its semicolon; &dagger; is a footnote mark', () => {
    assert.deepEqual(labels('Aqua&shy;, Glyc&shy;erin, Nia&shy;cin&shy;amide'), [
      'Aqua',
      'Glycerin',
      'Niacinamide',
    ]);
    assert.deepEqual(labels('Aqua, Glycerin&dagger;, Parfum. &dagger;natural origin'), [
      'Aqua',
      'Glycerin',
      'Parfum',
    ]);
  });

  it('a reference to a control or direction override is dropped from a list: the active is still read', () => {
    const product = derive('Aqua, Niacinamide&#x202E;, Zinc PCA&#27;');
    assert.deepEqual(
      product.parsed_ingredients.map((i) => i.label),
      ['Aqua', 'Niacinamide', 'Zinc PCA'],
    );
    assert.deepEqual(product.key_ingredients, ['Niacinamide', 'Zinc PCA']);
  });

  it('names, brands and types store no control, override, invisible character or half surrogate a reference spells', () => {
    const [record] = readCsv(
      [
        'product_id,name,brand,product_type,ingredients',
        'r-1,Serum &#27;[31mRed&#x202E;gpj.exe,Feuchtigkeits&shy;pflege&#x200B;Lab,serum&#x85;,Aqua',
        '',
      ].join('\r\n'),
    );
    assert.ok(record !== undefined && 'product' in record, JSON.stringify(record));
    const { name, brand, product_type } = record.product;
    assert.deepEqual(
      [name, brand, product_type],
      ['Serum [31mRedgpj.exe', 'FeuchtigkeitspflegeLab', 'serum'],
    );
    // JSON can spell half a surrogate pair raw (`\ud800`): no encoding can store it.
    const [json] = readJsonLines('{"product_id":"r-2","name":"Serum\\ud800 Gel","brand":"B&#xD800;"}');
    assert.ok(json !== undefined && 'product' in json, JSON.stringify(json));
    assert.deepEqual([json.product.name, json.product.brand], ['Serum Gel', 'B']);
  });
});
