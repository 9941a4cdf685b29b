/**
 * The spec: "When `admissions_enabled` is false on the health endpoint, new scans are refused with
 * `admissions_paused`, while reads, deletion and catalog tools continue to work." Every tool of both
 * endpoints, through the real SDK clients, while the operator's switch is off: start_skin_scan is
 * `admissions_paused` on /mcp and on /mcp/account alike; every other tool answers as it does with admissions
 * on (recommend_products included: it reads a scan that exists, it starts none).
 */
import assert from 'node:assert/strict';
import { setAdmissions } from '../../services/scan/admissions.ts';
import { completeScan, RED_ACNE_SCORES, TEST_CATALOG } from '../support/fixtures.ts';
import { callTool, readTool, twoEndpoints } from '../support/two-endpoints.ts';

describe('admissions paused: only new scans are refused, on both endpoints', () => {
  const ends = twoEndpoints('admissions-paused-tools', { products: TEST_CATALOG });
  const pair = (scan: Record<string, any>) => ({ run_id: scan.run_id, access_token: scan.access_token });
  const health = async () => (await (await fetch(`${ends.stack.baseUrl}/health`)).json()) as any;
  /** A complete scan started on each endpoint while admissions are on. */
  let guestScan: Record<string, any>;
  let accountScan: Record<string, any>;

  before(async () => {
    guestScan = await readTool(ends.guest, 'start_skin_scan', { source: 'paused guest' });
    accountScan = await readTool(ends.account, 'start_skin_scan', { source: 'paused account' });
    for (const scan of [guestScan, accountScan])
      await completeScan(ends.stack.orm, scan.run_id, RED_ACNE_SCORES);
    await setAdmissions(ends.stack.orm.em.fork(), false);
  });

  it('/health: admissions_enabled false, everything else as usual', async () => {
    assert.deepEqual(await health(), {
      ok: true,
      admissions_enabled: false,
      admissions_paused_by: ['operator'],
      catalog_tools_enabled: true,
      photo_intake: 'direct_or_link',
    });
  });

  it('start_skin_scan → admissions_paused on /mcp and on /mcp/account', async () => {
    for (const client of [ends.guest, ends.account]) {
      const { isError, body } = await callTool(client, 'start_skin_scan', { source: 'refused' });
      assert.equal(isError, true);
      assert.equal(body.error.code, 'admissions_paused');
    }
  });

  it('/mcp: get_skin_scan and recommend_products answer, then delete_skin_scan', async () => {
    assert.equal((await readTool(ends.guest, 'get_skin_scan', pair(guestScan))).status, 'complete');
    const matched = await readTool(ends.guest, 'recommend_products', pair(guestScan));
    assert.equal(matched.products.length, 5);
    assert.equal(matched.entitlement.used, 1);
    assert.deepEqual(await readTool(ends.guest, 'delete_skin_scan', pair(guestScan)), {
      run_id: guestScan.run_id,
      deleted: true,
    });
  });

  it('/mcp/account: the reads, recommend_products and the catalog tools answer', async () => {
    const { run_id } = accountScan;
    assert.equal((await readTool(ends.account, 'get_skin_scan', { run_id })).status, 'complete');
    const listed = await readTool(ends.account, 'list_my_scans', {});
    assert.deepEqual(
      listed.scans.map((scan: { run_id: string }) => scan.run_id),
      [run_id],
    );
    const matched = await readTool(ends.account, 'recommend_products', pair(accountScan));
    assert.equal(matched.products.length, 5);
    const found = await readTool(ends.account, 'search_products', { query: 'serum' });
    assert.ok(found.products.length > 0);
    const product = await readTool(ends.account, 'get_product', { product_id: 't-azelaic' });
    assert.equal(product.product.name, 'Calm Azelaic Serum');
    const ingredients = await readTool(ends.account, 'search_ingredients', { query: 'niacinamide' });
    assert.ok(ingredients.ingredients.length > 0);
    const ingredient = await readTool(ends.account, 'get_ingredient', { name: 'Niacinamide' });
    assert.ok(ingredient.ingredient);
  });

  it('/mcp/account: delete_skin_scan and delete_my_service_data answer', async () => {
    const { run_id } = accountScan;
    assert.deepEqual(await readTool(ends.account, 'delete_skin_scan', { run_id }), { run_id, deleted: true });
    const erased = await readTool(ends.account, 'delete_my_service_data', {});
    assert.equal(erased.deleted.accounts, 1);
  });
});
