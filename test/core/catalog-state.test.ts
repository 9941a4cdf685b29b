import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { CatalogState } from '../../gen/skinmatch/v1/status_pb.ts';
import { LiveCatalog } from '../../services/catalog/catalog-store.ts';
import { openDatabase } from '../../services/core/db/orm.ts';
import { StatusServiceImpl } from '../../services/core/status-service.ts';
import { accountRpc, createAccount, mintToken } from '../support/bearer.ts';
import { capturingLogger } from '../support/captured-log.ts';
import { createTestDatabase } from '../support/database.ts';
import { completeScan, RED_ACNE_SCORES, TEST_CATALOG } from '../support/fixtures.ts';
import { callTool, errorCode } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

const health = async (stack: Stack) => (await (await fetch(`${stack.baseUrl}/health`)).json()) as any;

describe('the catalog’s state', function () {
  this.timeout(60_000);

  describe('when the first load fails', () => {
    let stack: Stack;
    const sql = (text: string) => stack.orm.em.getConnection().execute(text);
    before(async () => {
      // The products table is out of reach when core starts, as in a database still being restored.
      stack = await startStack('catalog-state', {
        products: TEST_CATALOG,
        beforeCore: (orm) => orm.em.getConnection().execute('alter table products rename to products_away'),
      });
    });
    after(async () => stack?.close());

    it('health says so, core retries with backoff, and the catalog comes back by itself', async () => {
      const down = await health(stack);
      assert.equal(down.ok, true, 'the database answers; only the catalog is missing');
      assert.equal(down.catalog, 'unavailable');
      assert.equal(down.catalog_tools_enabled, false);
      const scan = (await callTool(stack.baseUrl, 'start_skin_scan', { source: 'catalog-state' }))
        .structuredContent;
      const pair = { run_id: scan.run_id, access_token: scan.access_token };
      await completeScan(stack.orm, pair.run_id, RED_ACNE_SCORES);
      assert.equal(
        errorCode(await callTool(stack.baseUrl, 'recommend_products', pair)),
        'catalog_unavailable',
      );
      // The product tools of /mcp/account say the same, as the tool error of the spec.
      const bearer = `Bearer ${await mintToken(stack, await createAccount(stack.coreUrl, 'catalog-state'))}`;
      const productTools = [
        ['search_products', { query: 'serum' }],
        ['get_product', { product_id: TEST_CATALOG[0]!.product_id }],
      ] as const;
      for (const [name, args] of productTools) {
        const { body } = await accountRpc(stack.baseUrl, bearer, 'tools/call', { name, arguments: args });
        assert.equal(body.result.isError, true, name);
        assert.equal(body.result.structuredContent.error.code, 'catalog_unavailable', name);
      }

      await sql('alter table products_away rename to products');
      let state = down;
      for (let waited = 0; state.catalog !== undefined && waited < 20_000; waited += 100) {
        await new Promise((r) => setTimeout(r, 100));
        state = await health(stack);
      }
      assert.equal(state.catalog, undefined, 'loaded: the key goes away');
      assert.equal(state.catalog_tools_enabled, true);
      const rec = await callTool(stack.baseUrl, 'recommend_products', pair);
      assert.equal(rec.structuredContent.products.length, 5);

      const failures = readFileSync(stack.logFile, 'utf8')
        .split('\n')
        .filter((line) => line.includes('"msg":"catalog load failed"'))
        .map((line) => JSON.parse(line));
      assert.ok(failures.length >= 1);
      assert.match(failures[0].err, /relation "products" does not exist/);
      // Each retry waits longer than the one before.
      const delays = failures.map((f) => f.retry_in_ms);
      assert.deepEqual(
        delays,
        delays.map((_, i) => Math.min(1000 * 2 ** i, 60_000)),
      );
    });
  });

  it('the status service logs why the database does not answer, once, and reports the catalog', async () => {
    const db = await createTestDatabase();
    const orm = await openDatabase(db.url);
    const { logger, lines } = capturingLogger<any>('info');
    const status = new StatusServiceImpl(orm, new LiveCatalog(orm, logger), logger);
    try {
      // No migrations: the settings table the status reads does not exist.
      const first = await status.getStatus();
      const second = await status.getStatus();
      for (const answer of [first, second]) {
        assert.equal(answer.databaseOk, false);
        assert.equal(answer.catalog, CatalogState.LOADING);
      }
      const why = lines.filter((line) => line.msg === 'status: the database does not answer');
      assert.equal(why.length, 1);
      assert.match(why[0].err, /relation "settings" does not exist/);
    } finally {
      await orm.close();
      await db.drop();
    }
  });
});
