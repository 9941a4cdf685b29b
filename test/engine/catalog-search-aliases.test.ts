/**
 * search_products reads ingredient words as the knowledge base does (`vitamin c` is ascorbic acid,
 * `hyaluronic acid` covers sodium hyaluronate, `bha` is a group), keeps literal matches, and ties a page
 * token to the query and filters it came from.
 */
import assert from 'node:assert/strict';
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import { SearchProductsRequestSchema } from '../../gen/skinmatch/v1/catalog_pb.ts';
import { ProductFilterSchema } from '../../gen/skinmatch/v1/catalog_types_pb.ts';
import { CatalogIndex } from '../../services/catalog/catalog-index.ts';
import { CatalogServiceImpl } from '../../services/catalog/catalog-service.ts';
import type { LiveCatalog } from '../../services/catalog/catalog-store.ts';
import { deriveProduct, type RawProduct } from '../../services/catalog/derive.ts';
import { errorReason } from '../../services/shared/errors.ts';
import { rawProduct } from '../support/raw-product.ts';

const BASE = 'Aqua, Glycerin, Propanediol, Phenoxyethanol';
const product = (id: string, name: string, actives: string, fields: Partial<RawProduct> = {}) =>
  rawProduct(id, { name, brand: 'Labbrand', ingredients: `${BASE}, ${actives}`, ...fields });

/** Retailer records as exports write them: the same actives under their INCI names, salts and esters. */
const PRODUCTS = [
  product('s-01', 'Bright Serum', 'L-Ascorbic Acid 15%, Tocopherol, Ferulic Acid'),
  product('s-02', 'Plump Gel', 'Sodium Hyaluronate, Panthenol', { vegan: true }),
  product('s-03', 'Clear Toner', 'Salicylic Acid 2%, Niacinamide'),
  product('s-04', 'Gentle Exfoliant', 'Betaine Salicylate, Allantoin', { vegan: true }),
  product('s-05', 'Barrier Cream', 'Ceramide NP, Ceramide AP, Cholesterol'),
  product('s-06', 'Vitamin C Glow Mist', 'Niacinamide'),
  product('s-07', 'Old Lotion', 'Mineral Oil, BHA'),
  product('s-08', 'Cica Balm', 'Centella Asiatica Extract, Madecassoside', { product_type: 'moisturizer' }),
  product('s-09', 'Hydra Serum', 'Hydrolyzed Hyaluronic Acid, Glycerin'),
  product('s-10', 'Plain Cream', 'Squalane'),
];
const index = new CatalogIndex(PRODUCTS.map(deriveProduct));
const catalog = new CatalogServiceImpl({ available: true, index } as LiveCatalog, Buffer.alloc(32, 3));
const found = (query: string) =>
  index.search(query, undefined, undefined, 100).map((e) => e.product.product_id);

const ask = (query: string, pageToken = '', filter?: { vegan?: boolean; productType?: string }) =>
  catalog.searchProducts(
    create(SearchProductsRequestSchema, {
      query,
      pageSize: 1,
      pageToken,
      filter: filter ? create(ProductFilterSchema, filter) : undefined,
    }),
  );
const refused = (call: Promise<unknown>) =>
  assert.rejects(call, (err) => {
    assert.equal(ConnectError.from(err).code, Code.InvalidArgument);
    assert.equal(errorReason(err), 'invalid_input');
    assert.equal(ConnectError.from(err).rawMessage, 'page_token is not one this service issued.');
    return true;
  });

describe('search_products: ingredient words as the knowledge base reads them', () => {
  it('a synonym, an active entry or a group word finds the products listing it under any name; literal words still match', () => {
    assert.deepEqual(found('vitamin c'), ['s-01', 's-06']);
    assert.deepEqual(found('Vitamin C serum'), ['s-01']);
    assert.deepEqual(found('hyaluronic acid'), ['s-02', 's-09']);
    assert.deepEqual(found('BHA'), ['s-03', 's-04', 's-07']);
    assert.deepEqual(found('ceramides'), ['s-05']);
    assert.deepEqual(found('cica'), ['s-08']);
    assert.deepEqual(found('nicotinamide'), ['s-03', 's-06']);
    // Literal words still match as before: `vitamin`, `e` are in s-06's name, and `labbrand` its brand.
    assert.deepEqual(found('vitamin e labbrand'), ['s-01', 's-06']);
    assert.deepEqual(found('vitamin e ferulic'), ['s-01']);
    // Literal matches stay: exact words, brand, and text that is no ingredient.
    assert.deepEqual(found('ascorbic acid'), ['s-01']);
    assert.deepEqual(found('salicyl'), ['s-03', 's-04']);
    assert.deepEqual(found('glow mist'), ['s-06']);
    assert.deepEqual(found('labbrand').length, PRODUCTS.length);
    assert.deepEqual(found('  '), found(''));
    // Pattern and SQL characters are text: `%` is in `15%` and `2%`, nothing has the others.
    assert.deepEqual(found('%'), ['s-01', 's-03']);
    for (const text of ['_', '\\', '.*', '(', '[', "' or 1=1 --"]) assert.deepEqual(found(text), [], text);
    assert.deepEqual(found('unobtainium'), []);
  });

  it('a page token continues only the query and filters it came from, any other → invalid_input; a full walk lists all once', async () => {
    const first = await ask('vitamin c');
    assert.deepEqual(
      first.products.map((p) => p.productId),
      ['s-01'],
    );
    const second = await ask('vitamin c', first.nextPageToken);
    assert.deepEqual(
      second.products.map((p) => p.productId),
      ['s-06'],
    );
    // The same words however they are spelled are the same search.
    assert.deepEqual(
      (await ask('  Vitamin   C ', first.nextPageToken)).products.map((p) => p.productId),
      ['s-06'],
    );
    await refused(ask('hyaluronic acid', first.nextPageToken));
    await refused(ask('', first.nextPageToken));
    await refused(ask('vitamin c', first.nextPageToken, { vegan: true }));
    const vegan = await ask('', '', { vegan: true });
    await refused(ask('', vegan.nextPageToken));
    await refused(ask('', vegan.nextPageToken, { vegan: false }));
    await refused(ask('', vegan.nextPageToken, { vegan: true, productType: 'serum' }));
    assert.deepEqual(
      (await ask('', vegan.nextPageToken, { vegan: true })).products.map((p) => p.productId),
      ['s-04'],
    );
    // A full walk by tokens lists every product once.
    const seen: string[] = [];
    let token = '';
    do {
      const page = await ask('', token);
      seen.push(...page.products.map((p) => p.productId));
      token = page.nextPageToken;
    } while (token !== '');
    assert.deepEqual(
      seen,
      PRODUCTS.map((p) => p.product_id),
    );
  });
});
