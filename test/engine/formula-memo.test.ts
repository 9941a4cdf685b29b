import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { deriveProduct, type RawProduct } from '../../services/catalog/derive.ts';
import { createDeriver } from '../../services/catalog/formula-memo.ts';

const samples = readFileSync(new URL('../../data/sample-catalog.jsonl', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line) as RawProduct);

describe('derivation with each formula read once (imports)', () => {
  it('derives exactly what deriveProduct derives, also when formulas repeat under other ids', () => {
    const derive = createDeriver();
    // Every sample twice: the second time under a new id, a sun-care type, declared skin types and
    // stated attributes, so that everything outside the formula differs while the formula repeats.
    const records = [
      ...samples,
      ...samples.map((raw, i) => ({
        ...raw,
        product_id: `again-${i}`,
        product_type: i % 2 === 0 ? 'sunscreen' : raw.product_type,
        skin_types: i % 3 === 0 ? ['oily'] : raw.skin_types,
        vegan: i % 5 === 0 ? true : raw.vegan,
      })),
      { ...samples[0]!, product_id: 'no-list', ingredients: null },
      { ...samples[0]!, product_id: 'placeholder', ingredients: 'see packaging' },
    ];
    for (const raw of records) assert.deepEqual(derive(raw), deriveProduct(raw), raw.product_id);
  });

  it('tells a sun-care product from another with the same list (UV filters count only in sun care)', () => {
    const derive = createDeriver();
    const list = 'Aqua, Zinc Oxide, Glycerin, Niacinamide';
    const base = { ...samples[0]!, ingredients: list };
    const serum = derive({ ...base, product_id: 'serum', product_type: 'serum', name: 'Serum' });
    const sun = derive({ ...base, product_id: 'sun', product_type: 'sunscreen', name: 'Sun' });
    assert.deepEqual(
      serum,
      deriveProduct({ ...base, product_id: 'serum', product_type: 'serum', name: 'Serum' }),
    );
    assert.deepEqual(
      sun,
      deriveProduct({ ...base, product_id: 'sun', product_type: 'sunscreen', name: 'Sun' }),
    );
    assert.notDeepEqual(serum.evidence, sun.evidence);
  });
});
