/**
 * A merchant's export from Shopify, WooCommerce or Open Beauty Facts imported as it comes, by the import
 * command operators run (`npm run catalog:import`), into a running stack: one product per product (not per
 * variant or image row), the fields each export gives stored, a warning naming the line for what it cannot
 * give, and recommend_products answering from them. Before, each file was refused whole (exit 2).
 */
import assert from 'node:assert/strict';
import { importHarness } from '../support/catalog-import.ts';
import { completeScan, RED_ACNE_SCORES } from '../support/fixtures.ts';
import { callTool } from '../support/mcp.ts';
import {
  MERCHANT_HEADER,
  MERCHANT_ROWS,
  OBF_EXPORT,
  SHOPIFY_EXPORT,
  SHOPIFY_PRODUCTS_JSON,
  table,
  WOO_EXPORT,
} from '../support/shop-exports.ts';

const NO_LIST = 'imported with every flag and the score unknown';

describe('catalog import: exports from shop platforms', function () {
  // Each test runs the import (or admin) script as a process of its own, several in one test: a loaded
  // machine starts each in seconds (one such test took 70 s at load 15), past mocha’s 30 s default.
  this.timeout(180_000);
  const h = importHarness('catalog-exports');
  const { importFile, write, ids } = h;
  const stored = async (id: string): Promise<Record<string, unknown>> =>
    (
      await h.stack.orm.em.getConnection().execute(
        `select name, brand, product_type, country, image_url, buy_url, ingredients_text, declared_skin_types,
                  vegan, cruelty_free from products where product_id = ?`,
        [id],
      )
    )[0] ?? {};

  it('a Shopify export: its image and variant rows are part of their product, a product without a list is warned of', async () => {
    const result = await importFile(write('products_export_1.csv', SHOPIFY_EXPORT), '--replace');
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /3 products imported or updated/);
    assert.deepEqual(await ids(), ['barrier-cream', 'calm-toner', 'dew-drop-serum']);
    assert.deepEqual(await stored('dew-drop-serum'), {
      name: 'Dew Drop Serum, 10% Niacinamide',
      brand: 'Hanbit Dew',
      product_type: 'Serum',
      country: null,
      image_url: 'https://cdn.shop.example/s/files/1/0001/0002/products/serum-front.jpg?v=1700000000',
      buy_url: null,
      ingredients_text: 'Aqua, Niacinamide, Glycerin, Zinc PCA, Phenoxyethanol',
      declared_skin_types: null,
      vegan: true,
      cruelty_free: true,
    });
    assert.equal(
      (await stored('barrier-cream')).ingredients_text,
      'Aqua, Glycerin, Butyrospermum Parkii Butter, Ceramide NP, Parfum, Linalool',
    );
    assert.deepEqual(
      result.stderr.split('\n').filter((line) => line.startsWith('warning')),
      [
        `warning line 12 (calm-toner): no ingredient list: its ingredients metafield is empty, and the description (Body (HTML)) speaks of ingredients, but sets no list apart under a title "Ingredients"; ${NO_LIST}`,
      ],
    );
    assert.equal((await h.derived('calm-toner')).attributes.fragrance_free, null);
  });

  it('a WooCommerce export: variations fold into their parent, Type is never the product type', async () => {
    const result = await importFile(write('wc-product-export.csv', WOO_EXPORT));
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(await ids(), ['LL-LONE-30', 'LL-SPF', 'LL-TONER', 'id:104']);
    assert.deepEqual(await stored('LL-TONER'), {
      name: 'Glow Toner, Gentle',
      brand: 'Lumen Lab',
      product_type: 'Toners',
      country: null,
      image_url: 'https://lumen.shop.example/wp-content/uploads/2026/03/toner.jpg',
      buy_url: null,
      ingredients_text: 'Aqua, Glycerin, Lactic Acid, Sodium Lactate, Parfum',
      declared_skin_types: ['Oily', 'Combination'],
      vegan: true,
      cruelty_free: null,
    });
    assert.deepEqual(
      [(await stored('id:104')).product_type, (await stored('LL-SPF')).buy_url],
      ['Moisturisers', 'https://partner.example/sun-veil'],
    );
    assert.deepEqual(
      result.stderr.split('\n').filter((line) => line.startsWith('warning')),
      [
        'warning line 10 (LL-SPF): its categories name different kinds of product ("Sunscreens", "Serums"): product_type left empty',
        'warning line 10 (LL-SPF): it names 2 brands ("Lumen Lab", "Partner Co"): brand left empty',
        `warning line 10 (LL-SPF): no ingredient list: no ingredients attribute, and neither description gives them; ${NO_LIST}`,
        'warning line 11 (LL-LONE-30): a variation whose parent product (Parent "id:200") is not in the file: imported as a product of its own',
      ],
    );
  });

  it('an Open Beauty Facts export, and recommend_products answering from all three', async () => {
    const obf = await importFile(write('openbeautyfacts-export.csv', OBF_EXPORT));
    assert.equal(obf.code, 0, obf.stderr);
    assert.deepEqual(await stored('3600000000017'), {
      name: 'Crème Visage Hydratante',
      brand: 'Maison Lila',
      product_type: 'Face creams',
      country: 'France',
      image_url: 'https://images.openbeautyfacts.org/images/products/360/000/000/0017/front_fr.3.400.jpg',
      buy_url: null,
      ingredients_text: 'Aqua, Glycerin, Butyrospermum Parkii Butter, Niacinamide, Phenoxyethanol',
      declared_skin_types: null,
      vegan: true,
      cruelty_free: true,
    });
    assert.equal((await stored('5000000000001')).name, '"Rich" Rose Mist');
    assert.match(obf.stderr, /warning line 4 \(5000000000001\): Open Beauty Facts gives no ingredient list/);
    for (const [file, text] of [
      ['shopify.csv', SHOPIFY_EXPORT],
      ['woo.csv', WOO_EXPORT],
    ]) {
      assert.equal((await importFile(write(file!, text!))).code, 0);
    }
    await h.untilCore('LL-TONER', true);
    await h.untilCore('dew-drop-serum', true);

    const recommend = async (filters: Record<string, unknown>) => {
      const started = await callTool(h.stack.baseUrl, 'start_skin_scan', { source: 'exports' });
      const { run_id, access_token } = started.structuredContent;
      await completeScan(h.stack.orm, run_id, RED_ACNE_SCORES);
      const result = await callTool(h.stack.baseUrl, 'recommend_products', {
        run_id,
        access_token,
        ...filters,
      });
      assert.equal(result.isError, undefined, JSON.stringify(result.structuredContent));
      return (result.structuredContent.products as any[]).map((p) => p.product_id).sort();
    };
    // The vegan Shopify toner has no ingredient list: it cannot be judged, so it is never a match.
    assert.deepEqual(await recommend({ product_type: 'toner', vegan: true }), ['LL-TONER']);
    assert.deepEqual(await recommend({ product_type: 'moisturizer' }), [
      '3600000000017',
      'barrier-cream',
      'id:104',
    ]);
    assert.deepEqual(await recommend({ free_from: ['fragrance'], vegan: true }), [
      '3600000000017',
      'dew-drop-serum',
    ]);
    assert.deepEqual(await recommend({ country: 'FR' }), ['3600000000017']);
  });

  it('a Shopify shop’s products.json: the same products as its CSV export, those not for sale skipped', async () => {
    assert.equal(
      (await importFile(h.jsonl('before.jsonl', [{ product_id: 'old-balm', name: 'Old Balm' }]))).code,
      0,
    );
    const json = await importFile(write('products.json', SHOPIFY_PRODUCTS_JSON));
    assert.equal(json.code, 1, json.stderr);
    assert.match(json.stdout, /^2 products imported or updated/m);
    assert.match(json.stdout, /^2 products skipped as not for sale: 1 archived \(status\), 1 not published/m);
    assert.match(
      json.stdout,
      /^1 products withdrawn: the catalog held them, and the file says they are not for sale$/m,
    );
    assert.deepEqual(
      json.stderr.split('\n').filter((line) => /^(skipped|rejected|warning) line/.test(line)),
      [
        'skipped line 52 (old-balm): archived (status)',
        'skipped line 59 (draft-mask): not published on the online store (published_at null)',
        `warning line 42 (calm-toner): no ingredient list: the description (body_html) speaks of ingredients, but sets no list apart under a title "Ingredients"; ${NO_LIST}`,
        'rejected line 66: the product has no handle: it names no product',
      ],
    );
    // The CSV export names the same products by the same handles: it updates them.
    assert.equal((await importFile(write('shopify.csv', SHOPIFY_EXPORT))).code, 0);
    assert.deepEqual(await ids(), ['barrier-cream', 'calm-toner', 'dew-drop-serum']);
  });

  it('a Google Merchant feed: one product per item group, and recommend_products answering from it', async () => {
    const feed = await importFile(write('merchant-feed.txt', table(MERCHANT_HEADER, MERCHANT_ROWS, true)));
    assert.equal(feed.code, 0, feed.stderr);
    assert.match(feed.stdout, /^3 products imported or updated/m);
    assert.deepEqual(
      feed.stderr.split('\n').filter((line) => line.startsWith('warning')),
      [
        `warning line 4 (BC-1): no ingredient list: the feed has no ingredients column, and the description speaks of ingredients, but sets no list apart under a title "Ingredients"; ${NO_LIST}`,
      ],
    );
    assert.deepEqual(await ids(), ['BC-1', 'GS', 'SPF-1']);
    await h.untilCore('SPF-1', true);
    const started = await callTool(h.stack.baseUrl, 'start_skin_scan', { source: 'merchant' });
    const { run_id, access_token } = started.structuredContent;
    await completeScan(h.stack.orm, run_id, RED_ACNE_SCORES);
    const result = await callTool(h.stack.baseUrl, 'recommend_products', { run_id, access_token });
    assert.equal(result.isError, undefined, JSON.stringify(result.structuredContent));
    // The cream has no list: it cannot be judged, so it is never a match; the serum is listed once.
    const products = result.structuredContent.products as { product_id: string; product_url: string }[];
    assert.deepEqual(
      products.map((p) => [p.product_id, p.product_url]),
      [
        ['GS', 'https://glow.shop.example/products/glow-serum?variant=30'],
        ['SPF-1', 'https://glow.shop.example/products/sun-fluid'],
      ],
    );
  });
});
