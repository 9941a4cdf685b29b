/**
 * Products a shop does not sell now, in its own export: Shopify's `Status` (draft, archived, unlisted) and
 * `Published` FALSE, WooCommerce's `Published` (0 private, -1 draft) and `Visibility in catalog` hidden, an
 * Open Beauty Facts product marked obsolete. Imported by the import command into a running stack, they were
 * stored and recommended to people like any product; now they are skipped, counted by reason in the
 * summary, each named on its line, the import still exits 0, and a copy an earlier import stored is
 * withdrawn (core stops serving it).
 */
import assert from 'node:assert/strict';
import { importHarness } from '../support/catalog-import.ts';
import { completeScan, RED_ACNE_SCORES } from '../support/fixtures.ts';
import { callTool } from '../support/mcp.ts';
import { OBF_HEADER, SHOPIFY_HEADER, table, WOO_HEADER } from '../support/shop-exports.ts';

const LIST = 'Aqua, Niacinamide, Glycerin, Zinc PCA, Salicylic Acid, Panthenol';

/** A Shopify product's first row (its fields) and one variant row that carries only its Handle. */
// biome-ignore format: the rows as the export lays them out
const shopify = (handle: string, fields: Record<string, string>): Record<string, string>[] => [
  { Handle: handle, Title: `Serum ${handle}`, Vendor: 'Hanbit Dew', Type: 'Serum', Published: 'TRUE',
    Status: 'active', 'Option1 Name': 'Size', 'Option1 Value': '30 ml', 'Variant SKU': `${handle}-30`,
    'Ingredients (product.metafields.custom.ingredients)': LIST, ...fields },
  { Handle: handle, 'Option1 Value': '50 ml', 'Variant SKU': `${handle}-50`, 'Variant Price': '34.00' },
];

// biome-ignore format: the rows as the export lays them out
const woo = (id: string, sku: string, fields: Record<string, string>) => ({
  ID: id, Type: 'simple', SKU: sku, Name: `Serum ${sku}`, Published: '1', 'Visibility in catalog': 'visible',
  Categories: 'Skincare > Serums', Brands: 'Lumen Lab', 'Regular price': '20',
  'Attribute 1 name': 'Ingredients', 'Attribute 1 value(s)': LIST, ...fields,
});

describe('catalog import: products the shop does not sell', function () {
  // Each test runs the import (or admin) script as a process of its own, several in one test: a loaded
  // machine starts each in seconds (one such test took 70 s at load 15), past mocha’s 30 s default.
  this.timeout(180_000);
  const h = importHarness('catalog-not-for-sale');
  const { importFile, write, ids } = h;
  const lines = (text: string, start: string) => text.split('\n').filter((line) => line.startsWith(start));

  async function recommendSerums(): Promise<string[]> {
    const started = await callTool(h.stack.baseUrl, 'start_skin_scan', { source: 'not-for-sale' });
    const { run_id, access_token } = started.structuredContent;
    await completeScan(h.stack.orm, run_id, RED_ACNE_SCORES);
    const result = await callTool(h.stack.baseUrl, 'recommend_products', {
      run_id,
      access_token,
      product_type: 'serum',
    });
    assert.equal(result.isError, undefined, JSON.stringify(result.structuredContent));
    return (result.structuredContent.products as any[]).map((p) => p.product_id).sort();
  }

  it('Shopify: draft, archived, unlisted and unpublished products are skipped, and a stored copy withdrawn', async () => {
    // An earlier export, when every product was on sale: all five stored and recommended.
    const handles = ['on-sale', 'drafted', 'archived', 'unlisted', 'unpublished'];
    const before = table(
      SHOPIFY_HEADER,
      handles.flatMap((handle) => shopify(handle, {})),
    );
    assert.equal((await importFile(write('before.csv', before))).code, 0);
    await h.untilCore('unpublished', true);
    assert.deepEqual(await recommendSerums(), [...handles].sort());

    const now = table(SHOPIFY_HEADER, [
      ...shopify('on-sale', {}),
      ...shopify('drafted', { Status: 'draft' }),
      ...shopify('archived', { Status: 'archived' }),
      ...shopify('unlisted', { Status: 'unlisted' }),
      ...shopify('unpublished', { Published: 'FALSE' }),
      ...shopify('new-draft', { Status: 'draft' }),
    ]);
    const result = await importFile(write('products_export_1.csv', now));
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^1 products imported or updated/m);
    assert.match(
      result.stdout,
      /^5 products skipped as not for sale: 2 draft \(Status\), 1 archived \(Status\), 1 unlisted \(Status\), 1 not published on the online store \(Published FALSE\)$/m,
    );
    assert.match(
      result.stdout,
      /^4 products withdrawn: the catalog held them, and the file says they are not for sale$/m,
    );
    assert.deepEqual(lines(result.stderr, 'skipped'), [
      'skipped line 4 (drafted): draft (Status)',
      'skipped line 6 (archived): archived (Status)',
      'skipped line 8 (unlisted): unlisted (Status)',
      'skipped line 10 (unpublished): not published on the online store (Published FALSE)',
      'skipped line 12 (new-draft): draft (Status)',
    ]);
    assert.deepEqual(lines(result.stderr, 'rejected'), []);
    assert.deepEqual(await ids(), ['on-sale']);
    await h.untilCore('unpublished', false);
    assert.deepEqual(await recommendSerums(), ['on-sale']);
  });

  it('WooCommerce: private, draft and hidden products are skipped with their variations; a full import withdraws', async () => {
    const stored = table(WOO_HEADER, [woo('1', 'SOLD', {}), woo('2', 'PRIVATE', {})]);
    assert.equal((await importFile(write('stored.csv', stored))).code, 0);
    const now = table(WOO_HEADER, [
      woo('1', 'SOLD', {}),
      woo('2', 'PRIVATE', { Published: '0' }),
      woo('3', 'DRAFT', { Published: '-1' }),
      woo('4', 'HIDDEN', { 'Visibility in catalog': 'hidden' }),
      woo('5', 'SEARCH-ONLY', { 'Visibility in catalog': 'search' }),
      // A variable product still a draft: its variations are part of it, no products of their own.
      woo('6', 'KIT', { Type: 'variable', Published: '-1' }),
      woo('7', 'KIT-30', { Type: 'variation', Parent: 'id:6', Name: 'Kit - 30 ml' }),
      // A variation whose parent is not in the file is a product of its own: disabled, it is not for sale.
      woo('8', 'LONE', { Type: 'variation', Parent: 'id:99', Published: '0' }),
    ]);
    const result = await importFile(write('wc-product-export.csv', now), '--replace');
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^2 products imported or updated/m);
    assert.match(
      result.stdout,
      /^5 products skipped as not for sale: 2 private \(Published 0\), 2 draft or pending review \(Published -1\), 1 hidden from the shop and its search \(Visibility in catalog hidden\)$/m,
    );
    assert.deepEqual(lines(result.stderr, 'skipped'), [
      'skipped line 3 (PRIVATE): private (Published 0)',
      'skipped line 4 (DRAFT): draft or pending review (Published -1)',
      'skipped line 5 (HIDDEN): hidden from the shop and its search (Visibility in catalog hidden)',
      'skipped line 7 (KIT): draft or pending review (Published -1)',
      'skipped line 9 (LONE): private (Published 0)',
    ]);
    assert.match(result.stdout, /^1 products withdrawn: the catalog held them/m);
    assert.match(result.stdout, /^0 products withdrawn \(absent from /m);
    assert.deepEqual(await ids(), ['SEARCH-ONLY', 'SOLD']);
  });

  it('Open Beauty Facts: a product marked obsolete is skipped', async () => {
    const header = [...OBF_HEADER, 'obsolete'];
    const row = (code: string, obsolete: string) => ({
      code,
      product_name: `Cream ${code}`,
      brands: 'Maison Lila',
      ingredients_text: LIST,
      obsolete,
    });
    const result = await importFile(
      write('obf.csv', table(header, [row('3600000000017', ''), row('3600000000024', 'on')], true)),
    );
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^1 products skipped as not for sale: 1 obsolete/m);
    assert.deepEqual(lines(result.stderr, 'skipped'), [
      'skipped line 3 (3600000000024): obsolete, no longer sold (obsolete)',
    ]);
    assert.deepEqual(await ids(), ['3600000000017']);
  });
});
