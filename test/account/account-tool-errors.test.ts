/**
 * The spec's error codes on /mcp/account, where recommend_products is "listed on both" endpoints and the scan
 * tools take a run_id: each condition of the errors table gets its exact code there as on /mcp. A missing
 * run_id is scan_required; an unknown key invalid_input naming it; another account's scan and an unknown one
 * the same not_found (no probing by run_id); a wrong access_token not_found; recommend_products on a scan
 * without a photo scan_not_uploaded, on one not complete scan_not_ready.
 */
import assert from 'node:assert/strict';
import { accountRpc, createAccount, mintToken } from '../support/bearer.ts';
import { setScanStatus, TEST_CATALOG } from '../support/fixtures.ts';
import { type Stack, startStack } from '../support/stack.ts';

const UNKNOWN_RUN = '0b7c6f3e-2a51-4c1e-9d2f-6f1e2d3c4b5a';
const WRONG_TOKEN = 'e'.repeat(64);

describe('/mcp/account: the spec’s error codes', () => {
  let stack: Stack;
  let owner: string;
  let stranger: string;
  let scan: { run_id: string; access_token: string };
  /** The tool error of a call that must fail: its body's error, after checking it is a tool result. */
  const error = async (bearer: string, name: string, args: Record<string, unknown>) => {
    const res = await accountRpc(stack.baseUrl, bearer, 'tools/call', { name, arguments: args });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const result = res.body.result;
    assert.equal(result.isError, true, JSON.stringify(result));
    assert.equal(result.content[0].text, JSON.stringify(result.structuredContent));
    return result.structuredContent.error as { code: string; message: string; field?: string };
  };

  before(async () => {
    stack = await startStack('account-tool-errors', { products: TEST_CATALOG });
    owner = `Bearer ${await mintToken(stack, await createAccount(stack.coreUrl, 'errors-owner'))}`;
    stranger = `Bearer ${await mintToken(stack, await createAccount(stack.coreUrl, 'errors-stranger'))}`;
    const res = await accountRpc(stack.baseUrl, owner, 'tools/call', {
      name: 'start_skin_scan',
      arguments: { source: 'errors' },
    });
    const { run_id, access_token } = res.body.result.structuredContent;
    scan = { run_id, access_token };
  });
  after(() => stack?.close());

  for (const name of ['get_skin_scan', 'delete_skin_scan', 'recommend_products']) {
    it(`${name} without run_id → scan_required; with an unknown key → invalid_input naming it`, async () => {
      const { access_token } = scan;
      assert.equal((await error(owner, name, { access_token })).code, 'scan_required');
      const unknown = await error(owner, name, { ...scan, colour: 'red' });
      assert.deepEqual([unknown.code, unknown.field], ['invalid_input', 'colour']);
    });
  }

  it('by run_id alone, another account’s scan and an unknown one are the same not_found', async () => {
    for (const name of ['get_skin_scan', 'delete_skin_scan']) {
      const others = await error(stranger, name, { run_id: scan.run_id });
      const unknown = await error(owner, name, { run_id: UNKNOWN_RUN });
      assert.equal(others.code, 'not_found');
      assert.deepEqual(others, unknown, name);
    }
  });

  it('a wrong access_token and an unknown run_id → not_found, whoever calls', async () => {
    for (const name of ['get_skin_scan', 'delete_skin_scan', 'recommend_products']) {
      for (const bearer of [owner, stranger]) {
        const wrong = await error(bearer, name, { ...scan, access_token: WRONG_TOKEN });
        const unknown = await error(bearer, name, { ...scan, run_id: UNKNOWN_RUN });
        assert.equal(wrong.code, 'not_found', name);
        assert.deepEqual(wrong, unknown, name);
      }
    }
  });

  it('recommend_products: no photo yet → scan_not_uploaded; not complete → scan_not_ready', async () => {
    assert.equal((await error(owner, 'recommend_products', scan)).code, 'scan_not_uploaded');
    for (const status of ['queued', 'analyzing', 'failed'] as const) {
      await setScanStatus(stack.orm, scan.run_id, status);
      assert.equal((await error(owner, 'recommend_products', scan)).code, 'scan_not_ready', status);
    }
  });
});
