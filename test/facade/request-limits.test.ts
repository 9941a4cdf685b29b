/**
 * The request budget: every request on the MCP endpoints — tools/list, ping, initialize, notifications,
 * malformed ones, other HTTP methods, requests without a valid bearer — spends a point of the caller's
 * per-minute budget (per network for guests, per account signed in). Over it: HTTP 429 with Retry-After
 * and JSON-RPC error -32029 (`data.code` `rate_limited`); a well-formed tool call still gets its
 * `rate_limited` tool error, as every tool call over a budget does. The authorization server and the
 * sign-in pages spend the same budget (HTTP 429 in OAuth's error shape).
 */
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { loadConfig } from '../../services/shared/config.ts';
import { accountRpc, createAccount, mintToken } from '../support/bearer.ts';
import { errorCode, JSON_RPC_HEADERS, rpc } from '../support/mcp.ts';
import { authorize, authorizeUrl, pkce, register } from '../support/oauth-http.ts';
import { type Stack, startStack } from '../support/stack.ts';

const BUDGET = 4;

/** The 429 every refused non-tool request gets, with the id it named (or null). */
function assertTooMany(res: { status: number; headers: Headers }, body: any, id: number | null) {
  assert.equal(res.status, 429);
  const retry = Number(res.headers.get('retry-after'));
  assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= 60, String(retry));
  assert.deepEqual(body, {
    jsonrpc: '2.0',
    id,
    error: {
      code: -32029,
      message: `Too many requests from this network; wait ${retry} s before trying again.`,
      data: { code: 'rate_limited', retry_after_seconds: retry },
    },
  });
}

describe('the request budget of the MCP endpoints', () => {
  let stack: Stack;

  beforeEach(async () => {
    stack = await startStack('request-limits', {
      limits: { requestsPerMinute: BUDGET, callsPerMinute: 1000, scansPerHour: 1000 },
    });
  });
  afterEach(() => stack?.close());

  const post = (body: string, headers: Record<string, string> = {}, path = '/mcp') =>
    fetch(`${stack.baseUrl}${path}`, { method: 'POST', headers: { ...JSON_RPC_HEADERS, ...headers }, body });

  it('tools/list, ping and initialize count: past the budget, HTTP 429 with Retry-After', async () => {
    for (let i = 0; i < BUDGET; i++) assert.equal((await rpc(stack.baseUrl, 'tools/list')).status, 200);
    for (const method of ['tools/list', 'ping']) {
      const res = await post(`{"jsonrpc":"2.0","id":9,"method":"${method}"}`);
      assertTooMany(res, await res.json(), 9);
    }
    const init = await post(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 10,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      }),
    );
    assertTooMany(init, await init.json(), 10);
  });

  it('malformed requests, notifications and GETs count too, and are refused alike', async () => {
    const spend = ['{', '{"jsonrpc":"2.0","method":"notifications/initialized"}', '[]', '{'];
    const statuses = [];
    for (const body of spend) statuses.push((await post(body)).status);
    assert.deepEqual(statuses, [400, 202, 400, 400]);
    for (const body of spend) {
      const res = await post(body);
      assertTooMany(res, await res.json(), null);
    }
    const get = await fetch(`${stack.baseUrl}/mcp`, { headers: JSON_RPC_HEADERS });
    assertTooMany(get, await get.json(), null);
  });

  it('a tool call past the request budget is a rate_limited tool error, as the spec answers tool calls', async () => {
    for (let i = 0; i < BUDGET; i++) await rpc(stack.baseUrl, 'ping');
    const { status, body } = await rpc(stack.baseUrl, 'tools/call', {
      name: 'start_skin_scan',
      arguments: { source: 'over' },
    });
    assert.equal(status, 200);
    assert.equal(errorCode(body.result), 'rate_limited');
    const retry = body.result.structuredContent.error.retry_after_seconds;
    assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= 60, String(retry));
    const started = await stack.orm.em.getConnection().execute('select count(*) as n from scans');
    assert.equal(Number(started[0]!.n), 0, 'no scan started');
  });

  it('the SDK client sees the 429 as an error naming it, not a hang', async () => {
    const client = new Client({ name: 'limits', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', stack.baseUrl)));
    // connect spent some of the budget (initialize, notifications/initialized, its GET for a stream).
    await assert.rejects(async () => {
      for (let i = 0; i <= BUDGET; i++) await client.listTools();
    }, /Too many requests from this network; wait \d+ s before trying again/);
    await client.close();
  });

  it('/mcp/account: signed-in requests count per account; requests without a valid bearer per network', async () => {
    const busy = `Bearer ${await mintToken(stack, await createAccount(stack.coreUrl, 'busy'))}`;
    const calm = `Bearer ${await mintToken(stack, await createAccount(stack.coreUrl, 'calm'))}`;
    for (let i = 0; i < BUDGET; i++)
      assert.equal((await accountRpc(stack.baseUrl, busy, 'ping')).status, 200);
    const refused = await post(
      '{"jsonrpc":"2.0","id":3,"method":"ping"}',
      { authorization: busy },
      '/mcp/account',
    );
    assert.equal(refused.status, 429);
    const body = (await refused.json()) as any;
    assert.equal(body.error.data.code, 'rate_limited');
    assert.match(body.error.message, /^Too many requests for this account; wait \d+ s/);
    assert.equal((await accountRpc(stack.baseUrl, calm, 'ping')).status, 200);
    // The network itself has spent nothing yet: its requests without a bearer are 401 until its budget ends.
    const anonymous = [];
    for (let i = 0; i < BUDGET; i++)
      anonymous.push((await accountRpc(stack.baseUrl, undefined, 'ping')).status);
    assert.deepEqual(anonymous, [401, 401, 401, 401]);
    const over = await post('{"jsonrpc":"2.0","id":3,"method":"ping"}', {}, '/mcp/account');
    assertTooMany(over, await over.json(), null);
    assert.equal(over.headers.get('www-authenticate'), null);
    assert.equal((await rpc(stack.baseUrl, 'ping')).status, 429, 'the same network on /mcp');
    assert.equal((await accountRpc(stack.baseUrl, calm, 'ping')).status, 200, 'the account still served');
  });

  it('the authorization server and sign-in pages spend the same budget: over it, 429 and no interaction stored', async () => {
    const { body: client } = await register(stack.baseUrl);
    const url = authorizeUrl(stack.baseUrl, {
      client_id: client.client_id,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    });
    const interactions = async () =>
      Number(
        (
          await stack.orm.em
            .getConnection()
            .execute("select count(*) as n from oauth_state where model = 'Interaction'")
        )[0]!.n,
      );
    for (let i = 1; i < BUDGET; i++) assert.equal((await authorize(url)).status, 303);
    assert.equal(await interactions(), BUDGET - 1);
    const refused = [
      await fetch(url, { redirect: 'manual' }),
      await fetch(`${stack.baseUrl}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=authorization_code&code=x',
      }),
      await fetch(`${stack.baseUrl}/interaction/some-uid`),
      await fetch(`${stack.baseUrl}/register`, { method: 'POST', body: '{}' }),
    ];
    for (const res of refused) {
      assert.equal(res.status, 429, res.url);
      const retry = Number(res.headers.get('retry-after'));
      assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= 60, String(retry));
      assert.deepEqual(await res.json(), {
        error: 'rate_limited',
        error_description: `Too many requests from this network; wait ${retry} s before trying again.`,
      });
    }
    assert.equal(await interactions(), BUDGET - 1);
  });
});

describe('request and registration budget configuration', () => {
  const env = { TOKEN_PEPPER: 'a'.repeat(64) };

  it('RATE_LIMIT_REQUESTS_PER_MINUTE: 600 by default, a positive integer', () => {
    assert.equal(loadConfig(env).guestRequestsPerMinute, 600);
    assert.equal(loadConfig(env).registrationsPerHour, 20);
    assert.equal(loadConfig({ ...env, RATE_LIMIT_REGISTRATIONS_PER_HOUR: '3' }).registrationsPerHour, 3);
    assert.equal(loadConfig({ ...env, RATE_LIMIT_REQUESTS_PER_MINUTE: '50' }).guestRequestsPerMinute, 50);
    assert.throws(
      () => loadConfig({ ...env, RATE_LIMIT_REQUESTS_PER_MINUTE: '0' }),
      /RATE_LIMIT_REQUESTS_PER_MINUTE: got "0", expected a positive integer/,
    );
  });
});
