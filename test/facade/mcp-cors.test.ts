/**
 * Browser-based MCP clients on another origin (MCP Inspector in direct mode, a web IDE) reach /mcp and
 * /mcp/account only from the origins the operator lists (MCP_ALLOWED_ORIGINS, facade/mcp/cors.ts): their
 * preflight answered, their answers (the 401's challenge included) readable by the page. Any other origin
 * keeps the DNS-rebinding refusal, unchanged.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { browserSuite } from '../support/browser.ts';
import { JSON_RPC_HEADERS, postMessage } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

const REFUSED = { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Origin not allowed.' } };
const TOOLS_LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

/** A page's own origin: a tiny server on another port that serves an empty page. */
async function pageServer(): Promise<{ server: Server; origin: string }> {
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<p>'));
  await once(server.listen(0, '127.0.0.1'), 'listening');
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('MCP endpoints from a browser page on another origin (MCP_ALLOWED_ORIGINS)', () => {
  const browsers = browserSuite();
  let stack: Stack;
  let listed: Awaited<ReturnType<typeof pageServer>>;
  let unlisted: Awaited<ReturnType<typeof pageServer>>;

  before(async () => {
    listed = await pageServer();
    unlisted = await pageServer();
    stack = await startStack('mcp-cors', { facade: { allowedOrigins: [listed.origin] } });
  });
  after(async () => {
    await stack?.close();
    listed?.server.close();
    unlisted?.server.close();
  });

  /** What a page on `origin` gets from fetch: the status and the headers it may read, or the failure. */
  async function fromPage(origin: string, path: string, headers: Record<string, string> = {}) {
    const page = await browsers.newPage();
    await page.goto(`${origin}/`);
    return page.evaluate(
      async ([url, headers, body]) => {
        try {
          const res = await fetch(url, { method: 'POST', headers, body });
          const json = await res.json();
          return { status: res.status, challenge: res.headers.get('www-authenticate'), json };
        } catch (err) {
          return { failed: String(err) };
        }
      },
      [`${stack.baseUrl}${path}`, { ...JSON_RPC_HEADERS, ...headers }, JSON.stringify(TOOLS_LIST)] as const,
    );
  }

  it('a listed origin lists the tools, and reads /mcp/account’s challenge to start discovery', async () => {
    const tools = await fromPage(listed.origin, '/mcp', { 'mcp-protocol-version': '2025-06-18' });
    assert.equal(tools.status, 200);
    const names = (tools.json as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name);
    assert.ok(names.includes('start_skin_scan'), names.join());
    const account = await fromPage(listed.origin, '/mcp/account');
    assert.equal(account.status, 401);
    assert.match(
      String(account.challenge),
      new RegExp(
        `^Bearer resource_metadata="${stack.baseUrl}/\\.well-known/oauth-protected-resource/mcp/account"`,
      ),
    );
  });

  it('an unlisted origin is blocked by the browser on both endpoints', async () => {
    for (const path of ['/mcp', '/mcp/account']) {
      const answer = await fromPage(unlisted.origin, path, { 'mcp-protocol-version': '2025-06-18' });
      assert.match(String((answer as { failed?: string }).failed), /TypeError: Failed to fetch/);
    }
  });

  const preflight = (origin: string, path: string) =>
    fetch(`${stack.baseUrl}${path}`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type,mcp-protocol-version',
      },
    });

  const corsHeaders = (res: Response) =>
    Object.fromEntries(
      [
        'access-control-allow-origin',
        'access-control-allow-methods',
        'access-control-allow-headers',
        'access-control-max-age',
        'access-control-expose-headers',
        'access-control-allow-credentials',
        'vary',
      ].map((name) => [name, res.headers.get(name)]),
    );

  it('answers a listed origin’s preflight on both endpoints, trailing slash included', async () => {
    for (const path of ['/mcp', '/mcp/account', '/mcp/account/']) {
      const res = await preflight(listed.origin, path);
      assert.equal(res.status, 204, path);
      assert.deepEqual(corsHeaders(res), {
        'access-control-allow-origin': listed.origin,
        'access-control-allow-methods': 'POST',
        'access-control-allow-headers':
          'content-type, accept, authorization, mcp-protocol-version, last-event-id, mcp-session-id',
        'access-control-max-age': '3600',
        'access-control-expose-headers': null,
        'access-control-allow-credentials': null,
        vary: 'Origin',
      });
    }
  });

  it('names the listed origin on every answer, refusals included, and exposes what a client reads', async () => {
    const exposed = {
      'access-control-allow-origin': listed.origin,
      'access-control-expose-headers': 'WWW-Authenticate, Retry-After, X-Request-Id',
      vary: 'Origin',
    };
    const pick = (res: { headers: Headers }) => ({
      'access-control-allow-origin': res.headers.get('access-control-allow-origin'),
      'access-control-expose-headers': res.headers.get('access-control-expose-headers'),
      vary: res.headers.get('vary'),
    });
    const ok = await postMessage(stack.baseUrl, TOOLS_LIST, { origin: listed.origin });
    assert.equal(ok.status, 200);
    assert.deepEqual(pick(ok), exposed);
    const unsupported = await postMessage(stack.baseUrl, TOOLS_LIST, {
      origin: listed.origin,
      'mcp-protocol-version': '1999-01-01',
    });
    assert.equal(unsupported.status, 400);
    assert.deepEqual(pick(unsupported), exposed);
    const unauthorized = await fetch(`${stack.baseUrl}/mcp/account`, {
      method: 'POST',
      headers: { ...JSON_RPC_HEADERS, origin: listed.origin },
      body: JSON.stringify(TOOLS_LIST),
    });
    assert.equal(unauthorized.status, 401);
    assert.deepEqual(pick(unauthorized), exposed);
  });

  it('keeps today’s 403 for an unlisted origin, its preflight included, and 405 for OPTIONS without one', async () => {
    for (const path of ['/mcp', '/mcp/account']) {
      const res = await preflight(unlisted.origin, path);
      assert.equal(res.status, 403);
      assert.deepEqual(await res.json(), REFUSED);
      assert.equal(res.headers.get('access-control-allow-origin'), null);
      assert.equal(res.headers.get('vary'), null);
    }
    const post = await postMessage(stack.baseUrl, TOOLS_LIST, { origin: unlisted.origin });
    assert.equal(post.status, 403);
    assert.deepEqual(post.body, REFUSED);
    assert.equal(post.headers.get('access-control-allow-origin'), null);
    const bare = await fetch(`${stack.baseUrl}/mcp`, { method: 'OPTIONS' });
    assert.equal(bare.status, 405);
    assert.equal(bare.headers.get('access-control-allow-origin'), null);
  });
});

describe('a listed origin over its request budget', () => {
  const origin = 'https://inspector.example.com';
  let stack: Stack;
  before(async () => {
    stack = await startStack('mcp-cors-429', {
      limits: {
        requestsPerMinute: 1,
        callsPerMinute: 1000,
        scansPerHour: 1000,
        uploadsPerHour: 1000,
        registrationsPerHour: 1000,
      },
      facade: { allowedOrigins: [origin] },
    });
  });
  after(() => stack?.close());

  it('reads the 429’s Retry-After', async () => {
    assert.equal((await postMessage(stack.baseUrl, TOOLS_LIST, { origin })).status, 200);
    const limited = await postMessage(stack.baseUrl, TOOLS_LIST, { origin });
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('access-control-allow-origin'), origin);
    assert.match(String(limited.headers.get('access-control-expose-headers')), /\bRetry-After\b/);
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
  });
});
