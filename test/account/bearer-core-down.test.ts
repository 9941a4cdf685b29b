/**
 * /mcp/account while core, which holds grants and accounts, does not answer: a well-signed bearer cannot be
 * checked, and that is the service's fault. The answer is HTTP 503 with Retry-After and a JSON-RPC error
 * carrying the tools' `unavailable` code (it was an HTTP 500 whose body no MCP client reads as JSON-RPC),
 * logged once without the token.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createFacade } from '../../facade/app.ts';
import { createInternalTransport } from '../../services/shared/internal-transport.ts';
import { createLogger } from '../../services/shared/logger.ts';
import { mintToken } from '../support/bearer.ts';
import { connectSdkClient, JSON_RPC_HEADERS } from '../support/mcp.ts';
import { testOAuthConfig } from '../support/oauth.ts';

describe('/mcp/account with core not answering', () => {
  let server: Server;
  let base: string;
  let bearer: string;
  const lines: Record<string, unknown>[] = [];

  before(async () => {
    server = createServer().listen(0, '127.0.0.1');
    await new Promise((ready) => server.once('listening', ready));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const logger = createLogger('bearer-core-down', 'info', sink);
    const app = await createFacade({
      core: createInternalTransport({ baseUrl: 'http://127.0.0.1:9' }), // nothing listens there
      allowedHosts: [new URL(base).host],
      logger,
      publicBaseUrl: base,
      oauth: testOAuthConfig(),
    });
    server.on('request', app.callback());
    // Signed by the service's key for /mcp/account; its grant and account can only be looked up in core.
    const token = await mintToken({ baseUrl: base, coreUrl: 'http://127.0.0.1:9' }, 'someone', {
      gid: crypto.randomUUID(),
    });
    bearer = `Bearer ${token}`;
  });
  after(() => new Promise((done) => server?.close(done)));

  const post = (authorization: string | undefined, method: string, params?: unknown) =>
    fetch(`${base}/mcp/account`, {
      method: 'POST',
      headers: { ...JSON_RPC_HEADERS, ...(authorization ? { authorization } : {}) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method, ...(params ? { params } : {}) }),
    });

  for (const [method, params] of [
    ['tools/list', undefined],
    ['tools/call', { name: 'list_my_scans', arguments: {} }],
  ] as const) {
    it(`${method} with a valid-looking bearer → 503, Retry-After 5, JSON-RPC -32603 with data.code unavailable`, async () => {
      lines.length = 0;
      const res = await post(bearer, method, params);
      assert.equal(res.status, 503);
      assert.equal(res.headers.get('retry-after'), '5');
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      const requestId = res.headers.get('x-request-id');
      assert.deepEqual(await res.json(), {
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32603,
          message: `The service could not complete this call; try again in 5 s (request ${requestId}).`,
          data: { code: 'unavailable', retry_after_seconds: 5 },
        },
      });
      const logged = lines.filter((line) => line.msg === 'token not checked: core did not answer');
      assert.equal(logged.length, 1);
      assert.equal(logged[0]!.request_id, requestId);
      assert.match(String(logged[0]!.err), /ECONNREFUSED/);
      assert.ok(!JSON.stringify(lines).includes(bearer.slice(7)), 'the token is never logged');
    });
  }

  it('the SDK client sees the 503 and its message, not a server crash', async () => {
    await assert.rejects(
      connectSdkClient(base, '/mcp/account', { authorization: bearer }),
      (err: Error & { code?: number }) => err.code === 503 && /"code":"unavailable"/.test(err.message),
    );
  });

  it('without a bearer: still 401 (nothing to check in core)', async () => {
    assert.equal((await post(undefined, 'tools/list')).status, 401);
  });
});
