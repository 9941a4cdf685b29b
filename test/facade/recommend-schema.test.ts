/**
 * recommend_products as the spec's tables give it, read through the real SDK client: the input table
 * (types, enums, patterns, limits, required, no other keys), the output table, the product match item and
 * the entitlement object (every field required, no other keys, the nullable ones string-or-null, the
 * limits), as the listing declares them and as a call answers them: a catalog product without brand,
 * type, country or addresses gives those fields null, never leaves them out.
 */
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { MEASURES } from '../../services/shared/measures.ts';
import { completeScan, product, RED_ACNE_SCORES } from '../support/fixtures.ts';
import { callTool, connectSdkClient } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

const ITEM_FIELDS = [
  'product_id',
  'name',
  'brand',
  'product_type',
  'match_score',
  'targets',
  'matches_concerns',
  'key_ingredients',
  'attributes',
  'country',
  'image_url',
  'product_url',
  'buy_url',
];
const ATTRIBUTES = ['vegan', 'cruelty_free', 'fragrance_free', 'alcohol_free', 'fungal_acne_safe'];
const ENTITLEMENT = ['tier', 'used', 'included', 'remaining', 'upgrade_required', 'more_in_app'];
const OUTPUT = ['products', 'scan_concerns', 'match_basis', 'entitlement', 'limitations'];
const sorted = (keys: readonly string[]) => [...keys].sort();
/** A field that may be null: its non-null branch. */
const nonNull = (schema: any) => {
  assert.deepEqual(schema.anyOf?.[1], { type: 'null' }, JSON.stringify(schema));
  return schema.anyOf[0];
};

describe('recommend_products: the spec’s input and output tables', () => {
  let stack: Stack;
  let client: Client;
  let tool: any;

  before(async () => {
    // A product the catalog knows little about: no brand, type, country, image or addresses.
    const bare = product('t-bare', {
      name: 'Bare Azelaic Serum',
      brand: null,
      product_type: null,
      country: null,
      product_url: null,
      ingredients: 'Aqua, Azelaic Acid, Niacinamide, Glycerin',
    });
    stack = await startStack('recommend-schema', { products: [bare] });
    client = await connectSdkClient(stack.baseUrl);
    tool = (await client.listTools()).tools.find((t) => t.name === 'recommend_products');
  });
  after(async () => {
    await client?.close();
    await stack?.close();
  });

  it('input: the types, enums, patterns and limits of the table; run_id and access_token required', () => {
    const input = tool.inputSchema;
    assert.equal(input.additionalProperties, false);
    assert.deepEqual(sorted(input.required), ['access_token', 'run_id']);
    const p = input.properties;
    assert.match('6F9619FF-8B86-D011-B42D-00CF4FC964FF', new RegExp(p.run_id.pattern));
    assert.equal(p.access_token.pattern, '^[a-f0-9]{64}$');
    assert.deepEqual(p.product_type.enum, [
      'cleanser',
      'toner',
      'serum',
      'moisturizer',
      'sunscreen',
      'eye_care',
      'exfoliator',
      'mask',
      'treatment',
    ]);
    assert.deepEqual(p.skin_type.enum, ['dry', 'oily', 'combination', 'normal']);
    assert.equal(p.free_from.type, 'array');
    assert.equal(p.free_from.maxItems, 3);
    assert.deepEqual(p.free_from.items.enum, ['fragrance', 'alcohol', 'fungal_acne_triggers']);
    assert.equal(p.vegan.type, 'boolean');
    assert.equal(p.cruelty_free.type, 'boolean');
    assert.deepEqual([p.brand.type, p.brand.maxLength], ['string', 60]);
    assert.deepEqual([p.country.type, p.country.maxLength], ['string', 40]);
  });

  it('output: five required fields and no other; items, attributes and entitlement closed and whole', () => {
    const output = tool.outputSchema.anyOf[0];
    assert.equal(output.additionalProperties, false);
    assert.deepEqual(sorted(output.required), sorted(OUTPUT));
    assert.deepEqual(sorted(Object.keys(output.properties)), sorted(OUTPUT));
    assert.equal(output.properties.products.maxItems, 5);
    assert.equal(output.properties.scan_concerns.maxItems, 6);
    assert.equal(output.properties.match_basis.type, 'string');
    assert.equal(output.properties.limitations.type, 'string');

    const item = output.properties.products.items;
    assert.equal(item.additionalProperties, false);
    assert.deepEqual(sorted(item.required), sorted(ITEM_FIELDS));
    assert.deepEqual(sorted(Object.keys(item.properties)), sorted(ITEM_FIELDS));
    const f = item.properties;
    assert.equal(f.product_id.type, 'string');
    assert.equal(f.name.type, 'string');
    for (const name of ['brand', 'product_type', 'country']) assert.equal(nonNull(f[name]).type, 'string');
    for (const name of ['image_url', 'product_url', 'buy_url']) {
      assert.deepEqual(nonNull(f[name]), { type: 'string', format: 'uri' }, name);
    }
    assert.deepEqual(nonNull(f.match_score), { type: 'integer', minimum: 0, maximum: 100 });
    assert.deepEqual(
      [f.targets.maxItems, f.matches_concerns.maxItems, f.key_ingredients.maxItems],
      [6, 6, 5],
    );
    assert.equal(f.attributes.additionalProperties, false);
    assert.deepEqual(sorted(f.attributes.required), sorted(ATTRIBUTES));
    for (const name of ATTRIBUTES) assert.equal(nonNull(f.attributes.properties[name]).type, 'boolean', name);

    const entitlement = output.properties.entitlement;
    assert.equal(entitlement.additionalProperties, false);
    assert.deepEqual(sorted(entitlement.required), sorted(ENTITLEMENT));
    const e = entitlement.properties;
    assert.equal(e.tier.const, 'free_guest');
    for (const name of ['used', 'included', 'remaining']) {
      assert.deepEqual([e[name].type, e[name].minimum, e[name].maximum], ['integer', 0, 9007199254740991]);
    }
    assert.equal(e.upgrade_required.type, 'boolean');
    assert.equal(e.more_in_app.type, 'string');
  });

  it('a call answers every field, null where the catalog has nothing, and the same JSON as text', async () => {
    const started = (await callTool(stack.baseUrl, 'start_skin_scan', { source: 'schema' }))
      .structuredContent;
    await completeScan(stack.orm, started.run_id, RED_ACNE_SCORES);
    const result = await client.callTool({
      name: 'recommend_products',
      arguments: { run_id: started.run_id, access_token: started.access_token },
    });
    const answer = result.structuredContent as any;
    assert.equal((result.content as { text: string }[])[0]!.text, JSON.stringify(answer));
    assert.deepEqual(sorted(Object.keys(answer)), sorted(OUTPUT));
    assert.deepEqual(sorted(Object.keys(answer.entitlement)), sorted(ENTITLEMENT));
    assert.equal(answer.products.length, 1);
    const [item] = answer.products;
    assert.deepEqual(sorted(Object.keys(item)), sorted(ITEM_FIELDS));
    assert.deepEqual(sorted(Object.keys(item.attributes)), sorted(ATTRIBUTES));
    for (const name of ['brand', 'product_type', 'country', 'image_url', 'product_url', 'buy_url']) {
      assert.equal(item[name], null, name);
    }
    assert.ok(Number.isInteger(item.match_score) && item.match_score > 0 && item.match_score <= 100);
  });

  it('a scan with every measure a concern: scan_concerns holds the six worst, in both tools', async () => {
    const started = (await callTool(stack.baseUrl, 'start_skin_scan', { source: 'ten' })).structuredContent;
    const pair = { run_id: started.run_id, access_token: started.access_token };
    // Scores 0, 1, 2, … in the measures' order: each measure a concern, each a little less severe.
    await completeScan(stack.orm, pair.run_id, Object.fromEntries(MEASURES.map((m, i) => [m, i])));
    const worst = ['acne', 'redness', 'dark_spots', 'uneven_tone', 'wrinkles', 'pores'];
    const read = await client.callTool({ name: 'get_skin_scan', arguments: pair });
    assert.deepEqual((read.structuredContent as any).scan_concerns, worst);
    const matched = await client.callTool({ name: 'recommend_products', arguments: pair });
    assert.deepEqual((matched.structuredContent as any).scan_concerns, worst);
  });
});
