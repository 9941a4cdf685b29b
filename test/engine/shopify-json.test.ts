/**
 * A Shopify shop's products as JSON (`/products.json` of its online store, the Admin API's `products`),
 * read through the import's reader (readCatalogFile): one product per handle as the CSV export gives it,
 * the list from a titled section of `body_html`, flags from tags, products not for sale skipped. Before, the
 * file was refused whole ("a column no catalog field answers to: products"). Shop and products are invented.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readCatalogFile } from '../../services/catalog/catalog-import.ts';
import { rawProduct } from '../support/raw-product.ts';
import { SHOPIFY_PRODUCTS_JSON } from '../support/shop-exports.ts';

const CDN = 'https://cdn.shop.example/s/files/1/0001/products';

describe('Shopify products JSON', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'shopify-json-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('one product per handle, the list from body_html, flags from tags, products not for sale skipped', () => {
    const path = join(dir, 'products.json');
    writeFileSync(path, SHOPIFY_PRODUCTS_JSON);
    const records = readCatalogFile(path);
    assert.deepEqual(records, [
      {
        line: 3,
        product: rawProduct('dew-drop-serum', {
          name: 'Dew Drop Serum',
          brand: 'Hanbit Dew',
          product_type: 'Serum',
          image_url: `${CDN}/serum.jpg`,
          ingredients: 'Aqua, Niacinamide, Glycerin, Zinc PCA, Phenoxyethanol',
          vegan: true,
          cruelty_free: true,
          demo: false,
        }),
        absent: ['country', 'product_url', 'buy_url', 'skin_types'],
      },
      {
        line: 42,
        product: rawProduct('calm-toner', {
          name: 'Calm Toner',
          brand: 'Hanbit Dew',
          product_type: 'Toner',
          demo: false,
        }),
        absent: ['country', 'product_url', 'buy_url', 'skin_types'],
        warnings: [
          'no ingredient list: the description (body_html) speaks of ingredients, but sets no list apart under a title "Ingredients"; imported with every flag and the score unknown',
        ],
      },
      { line: 52, skipped: 'archived (status)', productId: 'old-balm' },
      { line: 59, skipped: 'not published on the online store (published_at null)', productId: 'draft-mask' },
      { line: 66, rejected: 'the product has no handle: it names no product' },
    ]);
  });
});
