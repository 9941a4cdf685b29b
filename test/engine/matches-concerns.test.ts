import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { CatalogIndex } from '../../services/catalog/catalog-index.ts';
import { deriveProduct, MAX_TARGETS, type RawProduct } from '../../services/catalog/derive.ts';
import { TARGET_EVIDENCE } from '../../services/catalog/knowledge/knowledge.ts';
import { toProductMatch } from '../../services/match/product-message.ts';
import { concernsFromScores, MEASURES, type Measure } from '../../services/shared/measures.ts';
import fixtures from '../fixtures/real-products.json' with { type: 'json' };
import { rawProduct } from '../support/raw-product.ts';

const samples: RawProduct[] = readFileSync(
  new URL('../../data/sample-catalog.jsonl', import.meta.url),
  'utf8',
)
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line));

/** A scan whose one concern is `measure`, at score 20. */
const only = (measure: Measure) =>
  concernsFromScores(Object.fromEntries(MEASURES.map((m) => [m, m === measure ? 20 : 95])));

// A product addressing more concerns than `targets` shows (the six strongest) used to say it matched none
// of a scan's concern past them, while that concern raised its score.
describe('matches_concerns of a product addressing more than six concerns', () => {
  it('a wrinkles scan: the AHA 30 % + BHA 2 % peel scores for wrinkles and says so', () => {
    const label = fixtures.products.find((p) => p.name.startsWith('The Ordinary AHA 30%'))!;
    const { name, product_type, ingredients } = label;
    const peel = deriveProduct(rawProduct('peel', { name, product_type, ingredients }));
    assert.equal(peel.targets.length, MAX_TARGETS);
    assert.ok(!peel.targets.includes('wrinkles') && (peel.evidence.wrinkles ?? 0) >= TARGET_EVIDENCE);

    const concerns = only('wrinkles');
    const { best } = new CatalogIndex([peel]).recommend(concerns, null, undefined, 5);
    assert.equal(best[0]?.score, 67);
    const item = toProductMatch(best[0]!.entry, best[0]!.score, concerns);
    assert.deepEqual(item.matchesConcerns, ['wrinkles']);
    assert.deepEqual(item.product!.targets, ['wrinkles', ...peel.targets.slice(0, MAX_TARGETS - 1)]);
  });

  it('every sample product, every one-concern scan: matched exactly when its evidence targets the concern', () => {
    const index = new CatalogIndex(samples.map(deriveProduct));
    let beyondSix = 0;
    for (const measure of MEASURES) {
      const concerns = only(measure);
      for (const entry of index.entries) {
        const { product } = entry;
        const addresses = (product.evidence[measure] ?? 0) >= TARGET_EVIDENCE;
        if (addresses && !product.targets.includes(measure)) beyondSix++;
        const item = toProductMatch(entry, null, concerns);
        assert.deepEqual(
          item.matchesConcerns,
          addresses ? [measure] : [],
          `${product.product_id} ${measure}`,
        );
        assert.equal(item.product!.targets.includes(measure), addresses, `${product.product_id} ${measure}`);
        assert.ok(item.product!.targets.length <= MAX_TARGETS);
      }
    }
    // The case is common, not contrived: niacinamide alone addresses six concerns.
    assert.ok(beyondSix > 20, String(beyondSix));
  });
});
