/**
 * What recommend_products says about its filters, on the sample catalog (data/sample-catalog.jsonl) through
 * the MCP SDK client on a real PostgreSQL: match_basis names the filters applied, and an answer with no
 * products says which filter left nothing and that nothing was used.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RawProduct } from '../../services/catalog/derive.ts';
import { LIMITATIONS } from '../../services/match/match-service.ts';
import type { Measure } from '../../services/shared/measures.ts';
import { completeScan, HEALTHY_SCORES, RED_ACNE_SCORES } from '../support/fixtures.ts';
import { callTool, connectSdkClient } from '../support/mcp.ts';
import { rawProduct } from '../support/raw-product.ts';
import { type Stack, startStack } from '../support/stack.ts';

const SAMPLE: RawProduct[] = readFileSync(new URL('../../data/sample-catalog.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line));

/** A scented alcohol toner with nothing else (0 for any concern and for maintenance), and one with no list. */
const SPRITZ = [
  rawProduct('spritz-1', {
    name: 'Scented Spritz',
    brand: 'Plain Spritz',
    product_type: 'toner',
    ingredients: 'Aqua, Alcohol Denat., Parfum',
    demo: true,
  }),
  rawProduct('spritz-2', { name: 'Mystery Mist', brand: 'Plain Spritz', product_type: 'toner', demo: true }),
];

const NOTHING_USED =
  "Nothing was used from this scan's allowance: call recommend_products again with other or fewer filters.";

describe('recommend_products explains its filters', () => {
  let stack: Stack;
  let client: Client;

  before(async () => {
    stack = await startStack('recommend-empty', { products: [...SAMPLE, ...SPRITZ] });
    client = await connectSdkClient(stack.baseUrl);
  });
  after(async () => {
    await client?.close();
    await stack?.close();
  });

  async function newScan(scores: Partial<Record<Measure, number>> = RED_ACNE_SCORES) {
    const started = await callTool(stack.baseUrl, 'start_skin_scan', { source: 'empty' });
    const { run_id, access_token } = started.structuredContent;
    await completeScan(stack.orm, run_id, scores);
    return { run_id, access_token };
  }

  async function recommend(scan: object, filters: Record<string, unknown> = {}) {
    const result = await client.callTool({ name: 'recommend_products', arguments: { ...scan, ...filters } });
    assert.equal(result.isError, undefined, JSON.stringify(result.structuredContent));
    return result.structuredContent as any;
  }

  it('match_basis names the filters applied, always', async () => {
    const none = await recommend(await newScan());
    assert.match(none.match_basis, /^Scored against the scan's concerns.*\. No filter was applied\.$/);
    const some = await recommend(await newScan(), {
      product_type: 'serum',
      free_from: ['fragrance'],
      vegan: true,
      cruelty_free: false,
      country: 'USA',
    });
    assert.ok(some.products.length > 0);
    assert.match(
      some.match_basis,
      / Filters applied: product_type serum; free_from fragrance; vegan; country "USA" \(ISO code US\)\.$/,
    );
  });

  it('a filter that alone leaves nothing is named, with values the catalog holds, and nothing is used', async () => {
    const scan = await newScan();
    const brand = await recommend(scan, { brand: 'Verdant & Valley', product_type: 'serum' });
    assert.deepEqual(brand.products, []);
    assert.equal(brand.entitlement.used, 0);
    assert.equal(brand.entitlement.upgrade_required, false);
    assert.equal(brand.limitations, LIMITATIONS);
    assert.ok(
      brand.match_basis.endsWith(
        'Filters applied: product_type serum; brand "Verdant & Valley". No product passes the filters. ' +
          'No product is of brand "Verdant & Valley"; the catalog\'s brands include "Verdant & Vale", ' +
          '"Tidewell", "Pellucid Lab", "Mirelle Skin", "Maison Célestine", "Norrland Skin" (15 in all). ' +
          NOTHING_USED,
      ),
      brand.match_basis,
    );
    const country = await recommend(scan, { country: 'Atlantis' });
    assert.deepEqual(country.products, []);
    assert.ok(
      country.match_basis.endsWith(
        'No product is from country "Atlantis"; the catalog\'s countries include "FR", "KR", "US", "AU", ' +
          `"GB", "DE" (11 in all). ${NOTHING_USED}`,
      ),
      country.match_basis,
    );
    // Filters that each leave products but none together.
    const together = await recommend(scan, { brand: 'Verdant & Vale', country: 'Japan' });
    assert.deepEqual(together.products, []);
    assert.ok(
      together.match_basis.endsWith(
        'Filters applied: brand "Verdant & Vale"; country "Japan" (ISO code JP). No product passes the ' +
          `filters. Each filter alone leaves products, but together they leave none. ${NOTHING_USED}`,
      ),
      together.match_basis,
    );
    // Nothing was used: the same scan gets its match.
    const then = await recommend(scan, { brand: 'Verdant & Vale' });
    assert.ok(then.products.length > 0);
    assert.equal(then.entitlement.used, 1);
  });

  it('a product scoring 0 or null is no match: only positive scores are returned, and none left uses nothing', async () => {
    const scan = await newScan();
    // Two eye products pass every filter; neither lists an ingredient for redness, acne or dark spots.
    const eyes = await recommend(scan, {
      product_type: 'eye_care',
      free_from: ['fragrance', 'alcohol', 'fungal_acne_triggers'],
      vegan: true,
      cruelty_free: true,
    });
    assert.deepEqual(eyes.products, []);
    assert.equal(eyes.entitlement.used, 0);
    assert.equal(eyes.entitlement.upgrade_required, false);
    assert.ok(
      eyes.match_basis.endsWith(
        'None of the 2 products that pass the filters is a match: each scores 0 (none of its listed ' +
          "ingredients addresses the scan's concerns) or has no score (its ingredient list is missing or " +
          `not a list). ${NOTHING_USED}`,
      ),
      eyes.match_basis,
    );
    // Four masks pass; one fits (47), one scores 0 and two have no ingredient list: one match, used.
    const masks = await recommend(scan, { brand: 'Maison Célestine', product_type: 'mask', country: 'FR' });
    assert.equal(masks.products.length, 1);
    assert.ok(masks.products[0].match_score > 0);
    assert.ok(masks.products[0].matches_concerns.length > 0);
    assert.equal(masks.entitlement.used, 1);
  });

  it('the maintenance match (a scan with no concern) keeps the rule: its 0 and null are no match', async () => {
    const spritz = await recommend(await newScan(HEALTHY_SCORES), { brand: 'Plain Spritz' });
    assert.deepEqual(spritz.products, []);
    assert.equal(spritz.entitlement.used, 0);
    assert.ok(
      spritz.match_basis.endsWith(
        'None of the 2 products that pass the filters is a match: each scores 0 for maintenance ' +
          '(fragrance and drying alcohol, no barrier support, no sun protection) or has no score (its ' +
          `ingredient list is missing or not a list). ${NOTHING_USED}`,
      ),
      spritz.match_basis,
    );
    const masks = await recommend(await newScan(HEALTHY_SCORES), {
      brand: 'Maison Célestine',
      product_type: 'mask',
      country: 'FR',
    });
    assert.equal(masks.products.length, 2, 'the two masks with no ingredient list are left out');
    assert.ok(masks.products.every((p: any) => p.match_score > 0));
  });

  it('once the allowance is used, an empty answer is upgrade_required and does not invite another call', async () => {
    const scan = await newScan();
    assert.ok((await recommend(scan)).products.length > 0);
    const after = await recommend(scan, { brand: 'Verdant & Valley' });
    assert.deepEqual(after.products, []);
    assert.equal(after.entitlement.upgrade_required, true);
    // It points to the products the match gave (get_skin_scan's used_match), not to another call.
    assert.match(
      after.match_basis,
      /Filters applied: brand "Verdant & Valley"\. This scan's one match is already used, .* in used_match, .*; do not start another scan to get more\.$/,
    );
    assert.doesNotMatch(after.match_basis, /call recommend_products again/);
  });
});
