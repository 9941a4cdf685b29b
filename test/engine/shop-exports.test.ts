/**
 * Catalog files exported from shop platforms as they come (test/support/shop-exports.ts): Shopify's product
 * CSV, WooCommerce's product export and an Open Beauty Facts dump are read from disk through the import's
 * reader (readCatalogFile) into catalog records, one per product, with a warning for what the export cannot
 * give; recommend_products' ranking then finds them by the fields read. Before, each file was refused whole
 * (its header named columns no catalog field answers to).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { create } from '@bufbuild/protobuf';
import { ProductFilterSchema } from '../../gen/skinmatch/v1/catalog_types_pb.ts';
import { readCatalogFile } from '../../services/catalog/catalog-import.ts';
import { CatalogIndex } from '../../services/catalog/catalog-index.ts';
import type { RecordResult } from '../../services/catalog/catalog-records.ts';
import { deriveProduct, type RawProduct } from '../../services/catalog/derive.ts';
import { concernsFromScores } from '../../services/shared/measures.ts';
import { RED_ACNE_SCORES } from '../support/fixtures.ts';
import {
  csvRow,
  MERCHANT_HEADER,
  MERCHANT_ROWS,
  OBF_EXPORT,
  SHOPIFY_EXPORT,
  SHOPIFY_NEWER_EXPORT,
  SHOPIFY_NEWER_HEADER,
  table,
  WOO_EXPORT,
} from '../support/shop-exports.ts';

const NO_LIST = 'imported with every flag and the score unknown';

describe('catalog exports from shop platforms', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'shop-exports-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** The file's records by product id: the line, the product and its warnings; nothing rejected. */
  function read(name: string, text: string) {
    const path = join(dir, name);
    writeFileSync(path, text);
    const records = readCatalogFile(path);
    const rejected = records.filter((r) => 'rejected' in r);
    assert.deepEqual(rejected, []);
    const products = records as Extract<RecordResult, { product: RawProduct }>[];
    return new Map(products.map((r) => [r.product.product_id, r]));
  }

  it('Shopify: one product per Handle, its image and variant rows part of it, the list from a metafield or a section headed Ingredients', () => {
    const found = read('products_export_1.csv', SHOPIFY_EXPORT);
    assert.deepEqual([...found.keys()], ['dew-drop-serum', 'barrier-cream', 'calm-toner']);
    assert.deepEqual(
      [...found.values()].map((r) => r.line),
      // Descriptions hold line breaks: each product is named by the line its first row starts on.
      [2, 6, 12],
    );
    const serum = found.get('dew-drop-serum')!;
    assert.deepEqual(
      { ...serum.product, warnings: serum.warnings },
      {
        product_id: 'dew-drop-serum',
        name: 'Dew Drop Serum, 10% Niacinamide',
        brand: 'Hanbit Dew',
        product_type: 'Serum',
        country: null,
        image_url: 'https://cdn.shop.example/s/files/1/0001/0002/products/serum-front.jpg?v=1700000000',
        product_url: null,
        buy_url: null,
        // The metafield, not the description's `Key ingredients` highlight.
        ingredients: 'Aqua, Niacinamide, Glycerin, Zinc PCA, Phenoxyethanol',
        skin_types: null,
        vegan: true,
        cruelty_free: true,
        demo: false,
        warnings: undefined,
      },
    );
    const cream = found.get('barrier-cream')!.product;
    // No Type: Shopify's standard category says what it is.
    assert.equal(cream.product_type, 'Lotions & Moisturizers');
    assert.equal(
      cream.ingredients,
      'Aqua, Glycerin, Butyrospermum Parkii Butter, Ceramide NP, Parfum, Linalool',
    );
    assert.deepEqual([cream.vegan, cream.cruelty_free], [null, null]);
    const toner = found.get('calm-toner')!;
    assert.equal(toner.product.ingredients, null);
    assert.deepEqual(toner.warnings, [
      `no ingredient list: its ingredients metafield is empty, and the description (Body (HTML)) speaks of ingredients, but sets no list apart under a title "Ingredients"; ${NO_LIST}`,
    ]);

    const newer = read('products_export_2.csv', SHOPIFY_NEWER_EXPORT);
    assert.deepEqual([...newer.keys()], ['night-balm']);
    const balm = newer.get('night-balm')!.product;
    assert.deepEqual(
      [balm.name, balm.product_type, balm.image_url, balm.ingredients, balm.vegan],
      [
        'Night Balm',
        'Balm',
        'https://cdn.shop.example/s/files/1/0001/0002/products/balm.jpg',
        'Aqua, Squalane, Niacinamide, Panthenol, Tocopherol',
        true,
      ],
    );
    assert.equal(newer.get('night-balm')!.warnings, undefined);
  });

  it('WooCommerce: Type is no product type, variations belong to their parent, a lone variation is a product', () => {
    const found = read('wc-product-export-27-11-2026.csv', WOO_EXPORT);
    assert.deepEqual([...found.keys()], ['LL-TONER', 'id:104', 'LL-SPF', 'LL-LONE-30']);
    const toner = found.get('LL-TONER')!;
    assert.deepEqual(
      { ...toner.product, warnings: toner.warnings },
      {
        product_id: 'LL-TONER',
        name: 'Glow Toner, Gentle',
        brand: 'Lumen Lab',
        // `variable` is WooCommerce's kind of listing; the category names the product.
        product_type: 'Toners',
        country: null,
        image_url: 'https://lumen.shop.example/wp-content/uploads/2026/03/toner.jpg',
        product_url: null,
        buy_url: null,
        ingredients: 'Aqua, Glycerin, Lactic Acid, Sodium Lactate, Parfum',
        skin_types: ['Oily', 'Combination'],
        vegan: true,
        cruelty_free: null,
        demo: false,
        warnings: undefined,
      },
    );
    const balm = found.get('id:104')!.product;
    assert.deepEqual(
      [balm.product_type, balm.ingredients, balm.cruelty_free, balm.vegan],
      ['Moisturisers', 'Aqua, Butyrospermum Parkii Butter, Ceramide NP, 1,2-Hexanediol', true, null],
    );
    const spf = found.get('LL-SPF')!;
    assert.deepEqual(
      [spf.product.product_type, spf.product.brand, spf.product.buy_url, spf.product.ingredients],
      [null, null, 'https://partner.example/sun-veil', null],
    );
    assert.deepEqual(spf.warnings, [
      'its categories name different kinds of product ("Sunscreens", "Serums"): product_type left empty',
      'it names 2 brands ("Lumen Lab", "Partner Co"): brand left empty',
      `no ingredient list: no ingredients attribute, and neither description gives them; ${NO_LIST}`,
    ]);
    const lone = found.get('LL-LONE-30')!;
    assert.equal(lone.product.ingredients, 'Aqua, Glycerin, Panthenol');
    assert.deepEqual(lone.warnings, [
      'a variation whose parent product (Parent "id:200") is not in the file: imported as a product of its own',
    ]);
  });

  it('Open Beauty Facts: tab-separated and unquoted, tags read as their values, labels declare flags', () => {
    const found = read('openbeautyfacts-export.csv', OBF_EXPORT);
    assert.deepEqual([...found.keys()], ['3600000000017', '0012345678905', '5000000000001']);
    const cream = found.get('3600000000017')!;
    assert.deepEqual(
      { ...cream.product, warnings: cream.warnings },
      {
        product_id: '3600000000017',
        name: 'Crème Visage Hydratante',
        brand: 'Maison Lila',
        product_type: 'Face creams',
        country: 'France',
        image_url: 'https://images.openbeautyfacts.org/images/products/360/000/000/0017/front_fr.3.400.jpg',
        product_url:
          'https://world.openbeautyfacts.org/product/3600000000017/creme-visage-hydratante-maison-lila',
        buy_url: null,
        ingredients: 'Aqua, Glycerin, Butyrospermum Parkii Butter, Niacinamide, Phenoxyethanol',
        skin_types: null,
        vegan: true,
        cruelty_free: true,
        demo: false,
        warnings: undefined,
      },
    );
    const gel = found.get('0012345678905')!;
    assert.deepEqual(
      [gel.product.name, gel.product.product_type, gel.product.ingredients, gel.product.brand],
      ['Clear Gel Cleanser', 'Face cleansers', 'Aqua, Sodium Laureth Sulfate, Salicylic Acid, Parfum', null],
    );
    // `en:vegan` in ingredients_analysis_tags is Open Beauty Facts' own guess from the list: no label.
    assert.deepEqual([gel.product.vegan, gel.product.cruelty_free, gel.product.country], [null, null, null]);
    assert.deepEqual(gel.warnings, [
      'it names 2 brands ("Brightwell", "Brightwell Group"): brand left empty',
      'it is sold in 2 countries ("United Kingdom", "Ireland"): country left empty',
    ]);
    const mist = found.get('5000000000001')!;
    assert.deepEqual(
      [mist.product.name, mist.product.brand, mist.product.country, mist.product.ingredients],
      ['"Rich" Rose Mist', 'Misty', 'United Kingdom', null],
    );
    assert.deepEqual(mist.warnings, [`Open Beauty Facts gives no ingredient list for it: ${NO_LIST}`]);
  });

  it('Google Merchant feed: an item group is one product, the list from a sentence of the description', () => {
    const spaced = MERCHANT_HEADER.map((name) =>
      name === 'image_link' ? 'g:image_link' : name.replaceAll('_', ' '),
    );
    const renamed = MERCHANT_ROWS.map((row) =>
      Object.fromEntries(
        Object.entries(row).map(([name, value]) => [spaced[MERCHANT_HEADER.indexOf(name)]!, value]),
      ),
    );
    // As Merchant Center takes it (tab-separated, underscores), and as a spreadsheet of an XML feed has it.
    for (const [file, text] of [
      ['merchant-feed.txt', table(MERCHANT_HEADER, MERCHANT_ROWS, true)],
      ['merchant-feed.csv', table(spaced, renamed)],
    ] as const) {
      const found = read(file, text);
      assert.deepEqual([...found.keys()], ['GS', 'BC-1', 'SPF-1'], file);
      const serum = found.get('GS')!;
      assert.deepEqual(
        { ...serum.product, line: serum.line, warnings: serum.warnings },
        {
          product_id: 'GS',
          name: 'Glow Serum 30 ml',
          brand: 'Glow Lab',
          product_type: 'Serums',
          country: null,
          image_url: 'https://glow.shop.example/img/glow-serum.jpg',
          product_url: 'https://glow.shop.example/products/glow-serum?variant=30',
          buy_url: null,
          ingredients: 'Aqua, Glycerin, Niacinamide, Zinc PCA, Phenoxyethanol',
          skin_types: null,
          vegan: null,
          cruelty_free: null,
          demo: false,
          line: 2,
          warnings: undefined,
        },
        file,
      );
      // The feed says nothing of these: a product already stored keeps them.
      assert.deepEqual(serum.absent, ['country', 'buy_url', 'skin_types', 'vegan', 'cruelty_free'], file);
      const cream = found.get('BC-1')!;
      assert.deepEqual(
        [cream.line, cream.product.product_type, cream.product.ingredients],
        [4, 'Lotions & Moisturizers', null],
      );
      assert.deepEqual(cream.warnings, [
        `no ingredient list: the feed has no ingredients column, and the description speaks of ingredients, but sets no list apart under a title "Ingredients"; ${NO_LIST}`,
      ]);
      const sun = found.get('SPF-1')!;
      assert.deepEqual(
        [sun.product.product_type, sun.product.ingredients],
        [null, 'Aqua, Zinc Oxide 20%, Glycerin, Tocopherol'],
        file,
      );
    }
  });

  it('a description gives a list only where a title sets it apart', () => {
    const LIST = 'Aqua, Glycerin, Parfum';
    const given: [string, string | null][] = [
      [`<p>Soft.</p><h3>Ingredients</h3><p>${LIST}</p><h3>How to use</h3><p>Pat in.</p>`, LIST],
      [`<h2><strong>Full Ingredients:</strong></h2>\n<p>${LIST}</p>`, LIST],
      [`<p>Soft.</p><p><strong>Ingredients:</strong> ${LIST}</p><p>Pat in.</p>`, LIST],
      [`<p>Soft.<br><b>INCI</b>: ${LIST}<br><b>Size:</b> 50 ml</p>`, LIST],
      [
        `<p><strong>INGREDIENTS</strong></p><p>${LIST}</p><p><strong>How to use</strong></p><p>Pat in.</p>`,
        LIST,
      ],
      [
        `<details><summary>Ingredients (INCI)</summary><ul><li>Aqua</li><li>Parfum</li></ul></details>`,
        'Aqua\nParfum',
      ],
      [`Soft cream.\nIngredients: ${LIST}\nMade in France.`, LIST],
      // No title of its own: a highlight, words in the copy, a list run into a sentence.
      ['<p><strong>Key ingredients:</strong> Niacinamide, Zinc</p>', null],
      [`<p>Made with natural ingredients: ${LIST}.</p>`, null],
      [`<p>Our ingredients ${LIST} are natural.</p>`, null],
      // Two different lists: which is the product's cannot be told.
      [`<h3>Ingredients</h3><p>${LIST}</p><h3>Ingredients</h3><p>Aqua, Alcohol Denat.</p>`, null],
    ];
    const header = SHOPIFY_NEWER_HEADER.join(',');
    const rows = given.map(([body], i) =>
      csvRow(
        SHOPIFY_NEWER_HEADER.map((name) =>
          name === 'Title'
            ? `Product ${i}`
            : name === 'URL handle'
              ? `p-${i}`
              : name === 'Description'
                ? body
                : '',
        ),
      ),
    );
    const found = read('bodies.csv', [header, ...rows].join('\n'));
    given.forEach(([body, list], i) => {
      const record = found.get(`p-${i}`)!;
      assert.equal(record.product.ingredients, list, body);
      assert.equal(record.warnings === undefined, list !== null, body);
    });
  });

  it('recommend_products finds the exported products by the fields read from them', () => {
    const products = [
      ['shopify.csv', SHOPIFY_EXPORT],
      ['shopify-newer.csv', SHOPIFY_NEWER_EXPORT],
      ['woo.csv', WOO_EXPORT],
      ['obf.csv', OBF_EXPORT],
    ].flatMap(([name, text]) => [...read(name!, text!).values()].map((r) => deriveProduct(r.product)));
    const index = new CatalogIndex(products);
    // The stack test's scan (test/core/catalog-import-exports.test.ts): redness, acne, dark spots.
    const concerns = concernsFromScores(RED_ACNE_SCORES);
    const found = (filter: Record<string, unknown>) =>
      index
        .recommend(concerns, null, create(ProductFilterSchema, filter), 100)
        // As recommend_products keeps them: a product that cannot be judged (no list) is no match.
        .best.filter(({ score }) => score !== null && score > 0)
        .map(({ entry }) => entry.product.product_id)
        .sort();
    assert.deepEqual(found({ productType: 'moisturizer' }), [
      '3600000000017',
      'barrier-cream',
      'id:104',
      'night-balm',
    ]);
    // The vegan Shopify toner has no list: it cannot be judged, so it is no match.
    assert.deepEqual(found({ productType: 'toner', vegan: true }), ['LL-TONER']);
    // Only complete lists vouch: the toner without a list and the SPF never pass.
    assert.deepEqual(
      found({ freeFrom: ['fragrance'], vegan: true }),
      ['3600000000017', 'dew-drop-serum', 'night-balm'].sort(),
    );
    assert.deepEqual(found({ crueltyFree: true }), ['3600000000017', 'dew-drop-serum', 'id:104']);
    assert.deepEqual(found({ country: 'FR' }), ['3600000000017']);
  });
});
