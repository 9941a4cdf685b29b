/**
 * Words that name a member of every JavaScript object (`constructor`, `toString`) in a catalog file, as a
 * column, a skin type, a character reference or an ingredient: read as any other unknown word, never as the
 * member. Before, a skin type `constructor` stopped the import half way, a column `constructor` was dropped
 * without a word, `&constructor;` was stored as `function Object() { [native code] }`, and an ingredient
 * listed as `Constructor` made GetIngredient fail `internal`.
 */
import assert from 'node:assert/strict';
import { importHarness, real } from '../support/catalog-import.ts';

describe('catalog import: words that name members of every object', function () {
  // Each test runs the import script as a process of its own: a loaded machine starts each in seconds.
  this.timeout(180_000);
  const h = importHarness('catalog-object-keys');
  const { importFile, write, jsonl, derived } = h;

  it('a skin type, a reference and an ingredient named so are text; GetIngredient answers for it', async () => {
    const file = jsonl('members.jsonl', [
      { ...real('m-1', 'Aqua, Constructor, Glycerin'), skin_types: ['constructor', 'dry'] },
      { ...real('m-2'), name: 'Serum &constructor; &toString; &amp; Gel', skin_types: '__proto__' },
    ]);
    const result = await importFile(file);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^2 products imported/m);
    assert.deepEqual((await derived('m-1')).skin_types, ['dry']);
    await h.untilCore('m-2', true);
    const { product } = await h.catalog.getProduct({ productId: 'm-2' });
    assert.equal(product?.name, 'Serum &constructor; &toString; & Gel');
    const { ingredient } = await h.catalog.getIngredient({ name: 'constructor' });
    assert.deepEqual([ingredient?.name, ingredient?.synonyms], ['constructor', []]);
  });

  it('a column named constructor answers to no field: the file is refused (exit 2), naming it', async () => {
    const result = await importFile(write('column.csv', 'product_id,name,constructor\r\nm-3,Gel,x\r\n'));
    assert.equal(result.code, 2, result.stderr);
    assert.match(
      result.stderr,
      /^cannot read .*column\.csv: the header \(line 1\) has a column no catalog field answers to: "constructor"\./m,
    );
    assert.deepEqual(await h.ids(), []);
  });
});
