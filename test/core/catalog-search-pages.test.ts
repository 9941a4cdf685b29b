import assert from 'node:assert/strict';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { ErrorInfoSchema } from '../../gen/google/rpc/error_details_pb.ts';
import { CatalogService } from '../../gen/skinmatch/v1/catalog_pb.ts';
import { upsertProducts } from '../../services/catalog/catalog-store.ts';
import type { RawProduct } from '../../services/catalog/derive.ts';
import { errorReason } from '../../services/shared/errors.ts';
import { sealPageToken } from '../../services/shared/page-token.ts';
import { rawProduct } from '../support/raw-product.ts';
import { type Stack, startStack, TEST_PEPPER } from '../support/stack.ts';

const product = (id: string): RawProduct =>
  rawProduct(id, {
    name: `Pager product ${id}`,
    brand: 'Pagerbrand',
    ingredients: 'Aqua, Glycerin',
    demo: true,
  });

describe('search_products pages by a keyset cursor (CatalogService over gRPC)', () => {
  let stack: Stack;
  let catalog: ReturnType<typeof createClient<typeof CatalogService>>;

  before(async () => {
    const ids = ['pg-01', 'pg-02', 'pg-03', 'pg-04', 'pg-05', 'pg-06', 'pg-07', 'pg-08', 'pg-09', 'pg-10'];
    stack = await startStack('catalog-search-pages', { products: ids.map(product) });
    catalog = createClient(CatalogService, createGrpcTransport({ baseUrl: stack.coreUrl }));
  });
  after(() => stack?.close());

  const page = async (pageToken = '') => {
    const res = await catalog.searchProducts({ query: 'pager', pageSize: 3, pageToken });
    return { ids: res.products.map((p) => p.productId), next: res.nextPageToken };
  };
  /** Waits until core's live catalog has reloaded after a write (it reloads on `catalog_changed`). */
  const reloaded = async (present: string, absent?: string) => {
    for (let i = 0; i < 100; i++) {
      const has = async (id: string) =>
        catalog.getProduct({ productId: id }).then(
          () => true,
          () => false,
        );
      if ((await has(present)) && !(absent && (await has(absent)))) return;
      await new Promise((done) => setTimeout(done, 50));
    }
    assert.fail(`catalog did not reload (${present}, ${absent})`);
  };

  it('products imported or withdrawn between pages neither repeat nor skip one', async () => {
    const first = await page();
    assert.deepEqual(first.ids, ['pg-01', 'pg-02', 'pg-03']);
    assert.match(first.next, /^[\w-]+$/);
    // Two imported before the cursor: an offset would repeat pg-02 and pg-03.
    await upsertProducts(stack.orm.em.fork(), [product('pg-00a'), product('pg-00b')]);
    await reloaded('pg-00b');
    const second = await page(first.next);
    assert.deepEqual(second.ids, ['pg-04', 'pg-05', 'pg-06']);
    // Three withdrawn before the cursor (an offset would skip three) and one imported after it.
    await stack.orm.em
      .getConnection()
      .execute(`delete from products where product_id in ('pg-00a', 'pg-01', 'pg-02')`);
    await upsertProducts(stack.orm.em.fork(), [product('pg-085')]);
    await reloaded('pg-085', 'pg-01');
    const third = await page(second.next);
    assert.deepEqual(third.ids, ['pg-07', 'pg-08', 'pg-085']);
    const last = await page(third.next);
    assert.deepEqual(last, { ids: ['pg-09', 'pg-10'], next: '' });
  });

  it('a token whose product was withdrawn still continues after it', async () => {
    const first = await page();
    const [, , lastShown] = first.ids;
    await stack.orm.em.getConnection().execute('delete from products where product_id = ?', [lastShown]);
    await reloaded('pg-10', lastShown);
    const next = await page(first.next);
    assert.ok(
      next.ids.every((id) => id > lastShown!),
      `${next.ids} after ${lastShown}`,
    );
    assert.equal(next.ids.length, 3);
  });

  it('a made-up, offset-like, altered, truncated or foreign token → invalid_input naming page_token', async () => {
    const { next } = await page();
    const flipped = `${next.slice(0, 5)}${next[5] === 'A' ? 'B' : 'A'}${next.slice(6)}`;
    const scanToken = sealPageToken(TEST_PEPPER, 'list_my_scans page token\0someone', Buffer.from('pg-05'));
    const otherPepper = sealPageToken(
      Buffer.alloc(32, 9),
      'search_products page token',
      Buffer.from('pg-05'),
    );
    for (const token of [
      '3',
      '99999999',
      'x',
      next.slice(0, -1),
      `${next}A`,
      `${next}=`,
      flipped,
      scanToken,
      otherPepper,
    ]) {
      await assert.rejects(catalog.searchProducts({ query: 'pager', pageToken: token }), (err) => {
        assert.equal(ConnectError.from(err).code, Code.InvalidArgument, token);
        assert.equal(errorReason(err), 'invalid_input', token);
        const [info] = ConnectError.from(err).findDetails(ErrorInfoSchema);
        assert.equal(info?.metadata.field, 'page_token', token);
        return true;
      });
    }
  });

  it('a page_size over 100 or negative → invalid_input naming page_size, as ListAccountScans answers', async () => {
    // Before, SearchProducts and SearchIngredients answered 100 items to 101 (and to 5000).
    for (const pageSize of [101, 5000, -1]) {
      for (const call of [
        () => catalog.searchProducts({ query: 'pager', pageSize }),
        () => catalog.searchIngredients({ query: '', pageSize }),
      ]) {
        await assert.rejects(call(), (err) => {
          const error = ConnectError.from(err);
          assert.equal(error.code, Code.InvalidArgument, String(pageSize));
          assert.equal(errorReason(err), 'invalid_input');
          assert.equal(error.rawMessage, 'page_size must be 0 to 100.');
          assert.equal(error.findDetails(ErrorInfoSchema)[0]?.metadata.field, 'page_size');
          return true;
        });
      }
    }
    // 100 is taken: every pager product (about ten, as the tests above import and withdraw) on one page.
    const all = await catalog.searchProducts({ query: 'pager', pageSize: 100 });
    assert.deepEqual([all.products.length > 3, all.nextPageToken], [true, '']);
    assert.equal((await catalog.searchIngredients({ query: '', pageSize: 100 })).ingredients.length, 100);
  });
});
