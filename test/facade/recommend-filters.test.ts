/**
 * recommend_products' filters as agents and people write them, on the sample catalog (data/sample-catalog.jsonl,
 * countries as ISO 3166-1 alpha-2 codes) and a few products whose country three exports wrote three ways:
 * through the MCP SDK client, on a real PostgreSQL.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RawProduct } from '../../services/catalog/derive.ts';
import { completeScan, RED_ACNE_SCORES } from '../support/fixtures.ts';
import { callTool, connectSdkClient } from '../support/mcp.ts';
import { rawProduct } from '../support/raw-product.ts';
import { type Stack, startStack } from '../support/stack.ts';

const SAMPLE: RawProduct[] = readFileSync(new URL('../../data/sample-catalog.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line));

/** One brand's serums sold in Korea, the country written by three exports three ways. */
const SEOUL = ['KR', 'South Korea', 'Korea'].map((country, i) =>
  rawProduct(`seoul-${i}`, {
    name: `Calm Serum No. ${i + 1}`,
    brand: 'Seoul Atelier',
    country,
    ingredients: 'Aqua, Azelaic Acid, Niacinamide, Glycerin, Panthenol',
    demo: true,
  }),
);

/** Brands as their owners print them: a hyphen, a curly apostrophe, a registered sign. */
const BRANDED = ['La Roche-Posay', 'Paula\u2019s Choice', 'Neutrogena\u00ae'].map((brand, i) =>
  rawProduct(`brand-${i}`, {
    name: `Calming Serum ${i + 1}`,
    brand,
    country: 'FR',
    ingredients: 'Aqua, Azelaic Acid, Niacinamide, Glycerin, Panthenol',
    demo: true,
  }),
);

describe('recommend_products filters as callers write them', () => {
  let stack: Stack;
  let client: Client;

  before(async () => {
    stack = await startStack('recommend-filters', { products: [...SAMPLE, ...SEOUL, ...BRANDED] });
    client = await connectSdkClient(stack.baseUrl);
  });
  after(async () => {
    await client?.close();
    await stack?.close();
  });

  /** recommend_products on a fresh completed scan with these filters, through the SDK client. */
  async function recommend(filters: Record<string, unknown>) {
    const started = await callTool(stack.baseUrl, 'start_skin_scan', { source: 'filters' });
    const { run_id, access_token } = started.structuredContent;
    await completeScan(stack.orm, run_id, RED_ACNE_SCORES);
    const result = await client.callTool({
      name: 'recommend_products',
      arguments: { run_id, access_token, ...filters },
    });
    assert.equal(result.isError, undefined, JSON.stringify(result.structuredContent));
    return result.structuredContent as any;
  }

  it('a country named as people write it, or as a code in any case, finds the catalog’s ISO codes', async () => {
    const asked: [string, string][] = [
      ['USA', 'US'],
      ['United States', 'US'],
      ['U.S.', 'US'],
      ['Korea', 'KR'],
      ['South Korea', 'KR'],
      ['Republic of Korea', 'KR'],
      ['UK', 'GB'],
      ['United Kingdom', 'GB'],
      ['France', 'FR'],
      ['Japan', 'JP'],
      ['Germany', 'DE'],
      ['fr', 'FR'],
      ['KOR', 'KR'],
    ];
    const written: Record<string, string> = { 'South Korea': 'KR', Korea: 'KR' };
    for (const [country, code] of asked) {
      const result = await recommend({ country });
      assert.ok(result.products.length > 0, country);
      assert.equal(result.entitlement.used, 1, country);
      for (const product of result.products) {
        assert.equal(written[product.country] ?? product.country, code, `${country}: ${product.product_id}`);
      }
    }
  });

  it('one country written three ways by the catalog is one country, returned as the catalog holds it', async () => {
    for (const country of ['KR', 'kr', 'South Korea', 'Korea', 'Republic of Korea']) {
      const result = await recommend({ country, brand: 'Seoul Atelier' });
      assert.deepEqual(
        result.products.map((p: any) => [p.product_id, p.country]).sort(),
        [
          ['seoul-0', 'KR'],
          ['seoul-1', 'South Korea'],
          ['seoul-2', 'Korea'],
        ],
        country,
      );
    }
  });

  it('a brand is found however its punctuation, hyphens, apostrophes, & and trademark signs are written', async () => {
    const asked: [string, string][] = [
      ['Verdant and Vale', 'Verdant & Vale'],
      ['VERDANT & VALE', 'Verdant & Vale'],
      [' verdant\u00a0 & vale ', 'Verdant & Vale'],
      ['Quillon & Co.', 'Quillon & Co'],
      ['Quillon and Co', 'Quillon & Co'],
      ['Maison-Célestine', 'Maison Célestine'],
      ['maison celestine', 'Maison Célestine'],
      ['Maison Ce\u0301lestine', 'Maison Célestine'],
      ['La Roche Posay', 'La Roche-Posay'],
      ['Paulas Choice', 'Paula\u2019s Choice'],
      ["Paula's Choice", 'Paula\u2019s Choice'],
      ['Oku Garden\u2122', 'Oku Garden'],
      ['\uff2f\uff4b\uff55 \uff27\uff41\uff52\uff44\uff45\uff4e', 'Oku Garden'],
      ['Neutrogena', 'Neutrogena\u00ae'],
    ];
    for (const [brand, stored] of asked) {
      const result = await recommend({ brand });
      assert.ok(result.products.length > 0, brand);
      for (const product of result.products) assert.equal(product.brand, stored, brand);
    }
  });

  it('vegan and cruelty_free false, as strict clients fill every boolean, filter nothing; true narrows', async () => {
    const ids = (result: any) => result.products.map((p: any) => p.product_id);
    const unfiltered = await recommend({});
    const falses = await recommend({ vegan: false, cruelty_free: false });
    assert.deepEqual(ids(falses), ids(unfiltered));
    assert.equal(falses.entitlement.used, 1);
    assert.ok(falses.products.some((p: any) => p.attributes.vegan !== false));
    const vegan = await recommend({ vegan: true, cruelty_free: false });
    assert.ok(vegan.products.length > 0);
    for (const p of vegan.products) assert.equal(p.attributes.vegan, true, p.product_id);
    const tool = (await client.listTools()).tools.find((t) => t.name === 'recommend_products')!;
    for (const name of ['vegan', 'cruelty_free']) {
      assert.match((tool.inputSchema.properties as any)[name].description, /false, or left out: no filter/);
    }
  });

  it('a null filter is invalid_input, saying to leave the argument out for no filter', async () => {
    const started = await callTool(stack.baseUrl, 'start_skin_scan', { source: 'filters' });
    const { run_id, access_token } = started.structuredContent;
    await completeScan(stack.orm, run_id, RED_ACNE_SCORES);
    for (const [name, type] of [
      ['vegan', 'boolean'],
      ['cruelty_free', 'boolean'],
      ['brand', 'string'],
      ['free_from', 'array'],
    ]) {
      const result = await client.callTool({
        name: 'recommend_products',
        arguments: { run_id, access_token, [name!]: null },
      });
      assert.equal(result.isError, true);
      assert.deepEqual((result.structuredContent as any).error, {
        code: 'invalid_input',
        message: `Argument "${name}" must be ${type}, not null: leave the argument out for no filter (or its default).`,
        field: name,
      });
    }
    // Nothing was used: the scan still gets its match.
    const after = await client.callTool({ name: 'recommend_products', arguments: { run_id, access_token } });
    assert.equal((after.structuredContent as any).entitlement.used, 1);
    assert.ok((after.structuredContent as any).products.length > 0);
  });

  it('the country argument says what it accepts', async () => {
    const tool = (await client.listTools()).tools.find((t) => t.name === 'recommend_products')!;
    const country = (tool.inputSchema.properties as any).country.description as string;
    assert.match(country, /ISO 3166-1/);
    assert.match(country, /South Korea/);
    assert.match(country, /USA/);
  });
});
