/**
 * The MCP endpoints' body bound (1 MiB, endpoint.ts MAX_BODY_BYTES) against what an agent may send: an
 * overlong argument value is the tool's `invalid_input` naming the argument, through the real SDK client on
 * both endpoints, up to a body just under the bound; only a body past the bound is HTTP 413 (-32600).
 */
import assert from 'node:assert/strict';
import { MAX_BODY_BYTES } from '../../facade/mcp/endpoint.ts';
import { JSON_RPC_HEADERS } from '../support/mcp.ts';
import { callTool, readTool, twoEndpoints } from '../support/two-endpoints.ts';

describe('the MCP body bound and overlong arguments', () => {
  const ends = twoEndpoints('body-bound');
  let scan: { run_id: string; access_token: string };

  before(async () => {
    const started = await readTool(ends.guest, 'start_skin_scan', { source: 'body-bound' });
    scan = { run_id: started.run_id, access_token: started.access_token };
  });

  const post = (body: string) =>
    fetch(`${ends.stack.baseUrl}/mcp`, { method: 'POST', headers: JSON_RPC_HEADERS, body });

  for (const endpoint of ['guest', 'account'] as const) {
    it(`${endpoint}: a 100 000-character brand is invalid_input naming brand, not a transport error`, async () => {
      const { isError, body } = await callTool(ends[endpoint], 'recommend_products', {
        ...scan,
        brand: 'b'.repeat(100_000),
      });
      assert.equal(isError, true);
      assert.equal(body.error.code, 'invalid_input');
      assert.equal(body.error.field, 'brand');
      assert.equal(body.error.message, 'Argument "brand" must NOT have more than 60 characters.');
    });
  }

  it('a country filling the body to just under the bound is invalid_input naming country', async () => {
    const { isError, body } = await callTool(ends.guest, 'recommend_products', {
      ...scan,
      country: 'c'.repeat(MAX_BODY_BYTES - 1024),
    });
    assert.equal(isError, true);
    assert.equal(body.error.code, 'invalid_input');
    assert.equal(body.error.field, 'country');
  });

  it('a body of exactly the bound is served; one byte more is 413 with -32600', async () => {
    const list = '{"jsonrpc":"2.0","id":7,"method":"tools/list"}';
    const atBound = list + ' '.repeat(MAX_BODY_BYTES - list.length);
    const served = await post(atBound);
    assert.equal(served.status, 200);
    assert.equal(((await served.json()) as { id: number }).id, 7);
    const over = await post(`${atBound} `);
    assert.equal(over.status, 413);
    assert.deepEqual(await over.json(), {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Request body too large.' },
    });
  });
});
