import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { accountRpc, createAccount, mintToken, storeGrant } from '../support/bearer.ts';
import { TEST_CATALOG } from '../support/fixtures.ts';
import { until } from '../support/processes.ts';
import { type Stack, startStack } from '../support/stack.ts';

/** The spec's scope table: the scopes the account endpoint's tools need, all three. */
const SCOPES_NEEDED = 'scan:write scan:read catalog:read';

describe('/mcp/account', () => {
  let stack: Stack;
  let base: string;
  let accountId: string;
  let full: string;
  const call = (authorization: string | undefined, name: string, args: unknown = {}) =>
    accountRpc(base, authorization, 'tools/call', { name, arguments: args });

  before(async () => {
    stack = await startStack('account-endpoint', { products: TEST_CATALOG });
    base = stack.baseUrl;
    accountId = await createAccount(stack.coreUrl, 'endpoint-person');
    full = `Bearer ${await mintToken(stack, accountId)}`;
  });
  after(() => stack?.close());

  describe('without a valid bearer: HTTP 401 pointing at the resource metadata', () => {
    // Every scope the endpoint's tools need, as the protected-resource metadata lists them (MCP: servers
    // name the scope in the challenge, so a client that reads only the header asks for enough).
    const metadata = () =>
      `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp/account", scope="${SCOPES_NEEDED}"`;
    const invalid = () => `${metadata()}, error="invalid_token", error_description="The token is not valid."`;

    it('no Authorization header', async () => {
      const res = await accountRpc(base, undefined, 'tools/list');
      assert.equal(res.status, 401);
      assert.equal(res.challenge, metadata());
      assert.deepEqual(res.body, {
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32001,
          message: 'A valid bearer token is required; sign in through the authorization server.',
        },
      });
    });

    it('another scheme than Bearer: the challenge without an error code (RFC 6750 §3.1)', async () => {
      const schemes = [`Basic ${Buffer.from('a:b').toString('base64')}`, 'Digest username="a"', 'Bearerx y'];
      for (const authorization of schemes) {
        const res = await accountRpc(base, authorization, 'tools/list');
        assert.equal(res.status, 401, authorization);
        assert.equal(res.challenge, metadata(), authorization);
      }
    });

    it('garbage, an empty bearer, an expired token, another resource, issuer or type, an ended or foreign grant', async () => {
      const cases = {
        garbage: 'Bearer not-a-token',
        emptyBearer: 'Bearer ',
        expired: `Bearer ${await mintToken(stack, accountId, { expiresIn: -60 })}`,
        foreignResource: `Bearer ${await mintToken(stack, accountId, { aud: 'https://elsewhere.example/api' })}`,
        guestResource: `Bearer ${await mintToken(stack, accountId, { aud: `${base}/mcp` })}`,
        foreignIssuer: `Bearer ${await mintToken(stack, accountId, { iss: 'https://other-as.example' })}`,
        idTokenType: `Bearer ${await mintToken(stack, accountId, { typ: 'JWT' })}`,
        unknownAccount: `Bearer ${await mintToken(stack, crypto.randomUUID())}`,
        unknownGrant: `Bearer ${await mintToken(stack, accountId, { gid: crypto.randomUUID() })}`,
        anotherAccountsGrant: `Bearer ${await mintToken(stack, accountId, {
          gid: await storeGrant(stack.coreUrl, await createAccount(stack.coreUrl, 'grant-owner')),
        })}`,
      };
      for (const [name, authorization] of Object.entries(cases)) {
        const res = await accountRpc(base, authorization, 'tools/list');
        assert.equal(res.status, 401, name);
        assert.equal(res.challenge, invalid(), name);
      }
    });

    it('a token signed by another key', async () => {
      const { generateKeyPairSync } = await import('node:crypto');
      const { SignJWT } = await import('jose');
      const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
      const jwt = await new SignJWT({ scope: 'scan:read', client_id: 'x' })
        .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt' })
        .setSubject(accountId)
        .setIssuer(base)
        .setAudience(`${base}/mcp/account`)
        .setExpirationTime('5m')
        .sign(other);
      assert.equal((await accountRpc(base, `Bearer ${jwt}`, 'tools/list')).status, 401);
    });
  });

  it('a tool whose scope the token lacks: HTTP 403 insufficient_scope naming the scope', async () => {
    const readOnly = `Bearer ${await mintToken(stack, accountId, { scope: 'scan:read' })}`;
    const res = await call(readOnly, 'start_skin_scan', { source: 'x' });
    assert.equal(res.status, 403);
    assert.equal(
      res.challenge,
      `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp/account", error="insufficient_scope", scope="scan:write"`,
    );
    assert.deepEqual(res.body, {
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: -32001,
        message: 'This tool needs the scan:write scope, which the token does not grant.',
      },
    });
    assert.equal((await call(readOnly, 'search_products', {})).status, 403);
    // Erasing the account takes scan:write too: a reading client cannot delete the person's data.
    const catalogOnly = `Bearer ${await mintToken(stack, accountId, { scope: 'catalog:read' })}`;
    for (const bearer of [readOnly, catalogOnly]) {
      const erase = await call(bearer, 'delete_my_service_data', {});
      assert.equal(erase.status, 403);
      assert.match(erase.challenge!, /error="insufficient_scope", scope="scan:write"$/);
    }
    assert.equal((await call(full, 'list_my_scans', {})).status, 200, 'the account is still there');
    assert.equal((await call(readOnly, 'list_my_scans', {})).status, 200);
    // tools/list needs no particular scope.
    assert.equal((await accountRpc(base, readOnly, 'tools/list')).status, 200);
  });

  it('lists the account tools with schemas and truthful annotations', async () => {
    const { body } = await accountRpc(base, full, 'tools/list');
    const tools = new Map<string, any>(body.result.tools.map((t: any) => [t.name, t]));
    assert.deepEqual([...tools.keys()].sort(), [
      'delete_my_service_data',
      'delete_skin_scan',
      'get_ingredient',
      'get_product',
      'get_skin_scan',
      'list_my_scans',
      'recommend_products',
      'search_ingredients',
      'search_products',
      'start_skin_scan',
    ]);
    for (const name of [
      'search_products',
      'get_product',
      'search_ingredients',
      'get_ingredient',
      'list_my_scans',
    ]) {
      assert.equal(tools.get(name).annotations.readOnlyHint, true, name);
      assert.ok(tools.get(name).outputSchema, name);
    }
    assert.equal(tools.get('delete_my_service_data').annotations.destructiveHint, true);
    const recommend = tools.get('recommend_products');
    assert.deepEqual(recommend.annotations, {
      title: 'Recommend products for a scan',
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    });
    const guest = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    }).then((r) => r.json() as Promise<any>);
    const guestRecommend = guest.result.tools.find((t: any) => t.name === 'recommend_products');
    assert.deepEqual(recommend, guestRecommend, 'the same schema on both endpoints');
    // The filters search_products shares with recommend_products are described the same way.
    for (const name of ['vegan', 'cruelty_free', 'brand', 'country']) {
      const search = tools.get('search_products').inputSchema.properties[name];
      assert.deepEqual(search, recommend.inputSchema.properties[name], name);
      assert.ok(search.description, name);
    }
  });

  it('scans started here belong to the account: list, read and delete by run_id; others cannot see them', async () => {
    const started = (await call(full, 'start_skin_scan', { source: 'account test' })).body.result;
    assert.equal(started.isError, undefined);
    const runId = started.structuredContent.run_id;
    assert.match(started.structuredContent.access_token, /^[a-f0-9]{64}$/);
    const listed = (await call(full, 'list_my_scans', {})).body.result.structuredContent;
    assert.ok(listed.scans.some((s: any) => s.run_id === runId));
    const read = (await call(full, 'get_skin_scan', { run_id: runId })).body.result.structuredContent;
    assert.equal(read.status, 'awaiting_upload');

    const otherId = await createAccount(stack.coreUrl, 'someone-else');
    const other = `Bearer ${await mintToken(stack, otherId)}`;
    const foreign = (await call(other, 'get_skin_scan', { run_id: runId })).body.result;
    assert.equal(foreign.isError, true);
    assert.deepEqual(foreign.structuredContent, {
      error: { code: 'not_found', message: 'The account has no scan with this run_id.' },
    });
    assert.deepEqual((await call(other, 'list_my_scans', {})).body.result.structuredContent, { scans: [] });

    const deleted = (await call(full, 'delete_skin_scan', { run_id: runId })).body.result.structuredContent;
    assert.deepEqual(deleted, { run_id: runId, deleted: true });
    const gone = (await call(full, 'get_skin_scan', { run_id: runId })).body.result.structuredContent;
    assert.equal(gone.error.code, 'not_found');
  });

  it('list_my_scans pages newest first; bad input gets invalid_input', async () => {
    const pager = await createAccount(stack.coreUrl, 'pager');
    const bearer = `Bearer ${await mintToken(stack, pager)}`;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        (await call(bearer, 'start_skin_scan', { source: `p${i}` })).body.result.structuredContent.run_id,
      );
    const first = (await call(bearer, 'list_my_scans', { page_size: 2 })).body.result.structuredContent;
    assert.deepEqual(
      first.scans.map((s: any) => s.run_id),
      [ids[2], ids[1]],
    );
    const second = (await call(bearer, 'list_my_scans', { page_size: 2, page_token: first.next_page_token }))
      .body.result.structuredContent;
    assert.deepEqual(second, { scans: [second.scans[0]] });
    assert.equal(second.scans[0].run_id, ids[0]);
    const bad = (await call(bearer, 'list_my_scans', { page_token: 'zz' })).body.result.structuredContent;
    assert.deepEqual(bad.error, {
      code: 'invalid_input',
      message: 'page_token is not one this service issued.',
      field: 'page_token',
    });
    const badId = (await call(bearer, 'get_skin_scan', { run_id: 'nope' })).body.result.structuredContent;
    assert.equal(badId.error.code, 'invalid_input');
  });

  it('catalog tools: search and read products and ingredients', async () => {
    const found = (await call(full, 'search_products', { query: '', page_size: 2 })).body.result;
    assert.equal(found.isError, undefined);
    assert.equal(found.structuredContent.products.length, 2);
    assert.ok(found.structuredContent.next_page_token);
    const id = found.structuredContent.products[0].product_id;
    const product = (await call(full, 'get_product', { product_id: id })).body.result.structuredContent
      .product;
    assert.equal(product.product_id, id);
    const missing = (await call(full, 'get_product', { product_id: 'no-such-product' })).body.result
      .structuredContent;
    assert.deepEqual(missing.error, {
      code: 'not_found',
      message: 'No product "no-such-product" in the catalog.',
    });
    // An empty page_token is refused by every paging tool alike (search_ingredients read it as page one).
    for (const tool of ['search_products', 'search_ingredients', 'list_my_scans']) {
      const empty = (await call(full, tool, { page_token: '' })).body.result;
      assert.equal(empty.isError, true, tool);
      assert.deepEqual(
        empty.structuredContent.error,
        {
          code: 'invalid_input',
          message: 'Argument "page_token" must not be empty or only spaces.',
          field: 'page_token',
        },
        tool,
      );
    }
    const niacinamide = (await call(full, 'search_ingredients', { query: 'niacinamide' })).body.result
      .structuredContent;
    assert.ok(niacinamide.ingredients.some((i: any) => i.name === 'niacinamide'));
    const one = (await call(full, 'get_ingredient', { name: 'Niacinamide' })).body.result.structuredContent
      .ingredient;
    assert.equal(one.name, 'niacinamide');
    assert.ok(one.addresses.length > 0);
    const unknownArg = (await call(full, 'search_products', { colour: 'red' })).body.result.structuredContent;
    assert.equal(unknownArg.error.code, 'invalid_input');
  });

  it('/health says whether the catalog tools work: a reload that fails keeps them on the last loaded catalog', async () => {
    const enabled = async () =>
      ((await (await fetch(`${base}/health`)).json()) as Record<string, unknown>).catalog_tools_enabled;
    const failures = () =>
      readFileSync(stack.logFile, 'utf8').split('"msg":"catalog load failed"').length - 1;
    assert.equal(await enabled(), true);
    const listed = (await call(full, 'search_products', { query: '' })).body.result.structuredContent;
    const sql = stack.orm.em.getConnection();
    // The catalog cannot be read: every core replica's reload fails, and each goes on serving what it has.
    const before = failures();
    await sql.execute('alter table products rename to products_away');
    try {
      await sql.execute(`select pg_notify('catalog_changed', '')`);
      // The reload runs on the notification, and its line reaches the log file behind it: up to 20 s, as late
      // as a loaded machine runs them (it was 200 polls of 25 ms, about 5 s).
      await until('the reload failed', () => failures() > before, 20_000);
      assert.equal(await enabled(), true);
      const served = (await call(full, 'search_products', { query: '' })).body.result.structuredContent;
      assert.deepEqual(served, listed);
    } finally {
      await sql.execute('alter table products_away rename to products');
    }
  });

  it('the same JSON-RPC rules as /mcp: bad JSON → 400 -32700, GET → 405, Host check', async () => {
    const bad = await fetch(`${base}/mcp/account`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: full,
      },
      body: '{',
    });
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as any).error.code, -32700);
    const get = await fetch(`${base}/mcp/account`, { headers: { authorization: full } });
    assert.equal(get.status, 405);
    const { request } = await import('node:http');
    const status = await new Promise<number>((done) => {
      const req = request(
        `${base}/mcp/account`,
        { method: 'POST', headers: { host: 'evil.example' } },
        (res) => {
          res.resume();
          done(res.statusCode!);
        },
      );
      req.end('{}');
    });
    assert.equal(status, 403);
  });
});

describe('/mcp/account limits count per account, not per network', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack('account-limits', { limits: { callsPerMinute: 2, scansPerHour: 100 } });
  });
  after(() => stack?.close());

  it('one account over its budget is rate_limited; another from the same address is not', async () => {
    const a = `Bearer ${await mintToken(stack, await createAccount(stack.coreUrl, 'busy'))}`;
    const b = `Bearer ${await mintToken(stack, await createAccount(stack.coreUrl, 'calm'))}`;
    const list = (auth: string) =>
      accountRpc(stack.baseUrl, auth, 'tools/call', { name: 'list_my_scans', arguments: {} });
    await list(a);
    await list(a);
    const limited = (await list(a)).body.result;
    assert.equal(limited.isError, true);
    assert.equal(limited.structuredContent.error.code, 'rate_limited');
    assert.ok(limited.structuredContent.error.retry_after_seconds >= 1);
    assert.equal((await list(b)).body.result.isError, undefined);
  });
});
