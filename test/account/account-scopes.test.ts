/**
 * The spec's scope table, tool by tool: `scan:write` starts scans (and, as deleting takes at least what
 * starting does, deletes them and the account's data), `scan:read` reads the account's scans and scores
 * (recommend_products among them), `catalog:read` the product and ingredient tools. Each account tool is
 * called with a token of each single scope: the right one reaches the tool (HTTP 200, a tool result); each
 * other is HTTP 403 `insufficient_scope` naming the scope the tool needs.
 */
import assert from 'node:assert/strict';
import { accountRpc, createAccount, mintToken } from '../support/bearer.ts';
import { TEST_CATALOG } from '../support/fixtures.ts';
import { type Stack, startStack } from '../support/stack.ts';

const UNKNOWN_RUN = '0b7c6f3e-2a51-4c1e-9d2f-6f1e2d3c4b5a';
const TOKEN = 'e'.repeat(64);

/** Each account tool, the scope it needs, and arguments it takes (the tool's answer does not matter here). */
const TOOLS: [string, string, Record<string, unknown>][] = [
  ['start_skin_scan', 'scan:write', { source: 'scopes' }],
  ['get_skin_scan', 'scan:read', { run_id: UNKNOWN_RUN }],
  ['list_my_scans', 'scan:read', {}],
  ['recommend_products', 'scan:read', { run_id: UNKNOWN_RUN, access_token: TOKEN }],
  ['delete_skin_scan', 'scan:write', { run_id: UNKNOWN_RUN }],
  ['search_products', 'catalog:read', { query: 'serum' }],
  ['get_product', 'catalog:read', { product_id: 't-azelaic' }],
  ['search_ingredients', 'catalog:read', { query: 'niacinamide' }],
  ['get_ingredient', 'catalog:read', { name: 'Niacinamide' }],
  // Last: it erases the account the other calls use.
  ['delete_my_service_data', 'scan:write', {}],
];
const SCOPES = ['scan:write', 'scan:read', 'catalog:read'];

describe('/mcp/account: each tool needs the scope the spec gives it', () => {
  let stack: Stack;
  const bearers = new Map<string, string>();

  before(async () => {
    stack = await startStack('account-scopes', { products: TEST_CATALOG });
    const accountId = await createAccount(stack.coreUrl, 'scopes-person');
    for (const scope of SCOPES) bearers.set(scope, `Bearer ${await mintToken(stack, accountId, { scope })}`);
  });
  after(() => stack?.close());

  it('the listing has no tool this table leaves out', async () => {
    const { body } = await accountRpc(stack.baseUrl, bearers.get('catalog:read'), 'tools/list');
    const listed = body.result.tools.map((tool: { name: string }) => tool.name).sort();
    assert.deepEqual(listed, TOOLS.map(([name]) => name).sort());
  });

  for (const [name, needed, args] of TOOLS) {
    it(`${name}: ${needed} reaches it, the other scopes get 403 naming ${needed}`, async () => {
      for (const scope of SCOPES.filter((s) => s !== needed)) {
        const refused = await accountRpc(stack.baseUrl, bearers.get(scope), 'tools/call', {
          name,
          arguments: args,
        });
        assert.equal(refused.status, 403, `${name} with ${scope}`);
        assert.match(refused.challenge ?? '', new RegExp(`error="insufficient_scope", scope="${needed}"$`));
        assert.equal(refused.body.error.code, -32001);
      }
      const served = await accountRpc(stack.baseUrl, bearers.get(needed), 'tools/call', {
        name,
        arguments: args,
      });
      assert.equal(served.status, 200, JSON.stringify(served.body));
      assert.ok(served.body.result, JSON.stringify(served.body));
    });
  }
});
