import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { makeSampleCatalog, SAMPLE_SIZE, toJsonLines } from '../../scripts/make-sample-catalog.ts';
import { deriveProduct, type RawProduct } from '../../services/catalog/derive.ts';
import { compileProduct, createScorer } from '../../services/match/engine/index.ts';
import { PRODUCT_TYPES } from '../../services/match/match-input.ts';

const committed = readFileSync(new URL('../../data/sample-catalog.jsonl', import.meta.url), 'utf8');
const products: RawProduct[] = committed
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line));

describe('sample catalog', () => {
  it('is exactly what the generator script writes', () => {
    assert.equal(committed, toJsonLines(makeSampleCatalog()));
  });

  it('holds 300+ demo products with unique ids', () => {
    assert.equal(products.length, SAMPLE_SIZE);
    assert.ok(products.length >= 300);
    assert.ok(products.every((product) => product.demo === true));
    assert.equal(new Set(products.map((product) => product.product_id)).size, products.length);
  });

  it('covers every product type of the spec plus free strings', () => {
    const types = new Set(products.map((product) => product.product_type));
    for (const type of PRODUCT_TYPES) {
      assert.ok(types.has(type), type);
    }
    assert.ok(types.has('essence'));
  });

  it('leaves some vegan and cruelty_free unknown and some ingredient lists unusable', () => {
    assert.ok(products.some((product) => product.vegan === null));
    assert.ok(products.some((product) => product.cruelty_free === null));
    assert.ok(products.some((product) => product.ingredients === null));
    assert.ok(products.some((product) => product.ingredients === '#NAME?'));
  });

  it('derives and scores every product', () => {
    const derived = products.map(deriveProduct);
    const scoreFor = createScorer([
      { name: 'acne', severity: 0.6 },
      { name: 'redness', severity: 0.3 },
    ]);
    const scores = derived.map((product) => scoreFor(compileProduct(product)));
    assert.equal(
      scores.filter((value) => value === null).length,
      derived.filter((d) => d.parsed_ingredients.length === 0).length,
    );
    assert.ok(scores.some((value) => value !== null && value >= 80));
    assert.ok(derived.some((product) => product.attributes.fragrance_free === false));
    assert.ok(derived.some((product) => product.attributes.alcohol_free === false));
    assert.ok(derived.some((product) => product.attributes.fungal_acne_safe === false));
  });
});
