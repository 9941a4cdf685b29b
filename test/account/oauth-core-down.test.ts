/**
 * The authorization server while core, which keeps its clients, grants and codes, cannot be reached: a
 * dependency's outage, not the request's fault nor a bug. /register and /token answer HTTP 503 with
 * Retry-After and their JSON error shape, `temporarily_unavailable`; /authorize, whose client (and so its
 * redirect URI) cannot be looked up, answers a 503 page and redirects nobody. Each was an HTTP 500
 * `server_error` before.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { createServer as createHttp2Server, type Http2Server } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { createFacade } from '../../facade/app.ts';
import { createInternalTransport } from '../../services/shared/internal-transport.ts';
import { createLogger } from '../../services/shared/logger.ts';
import { testOAuthConfig } from '../support/oauth.ts';

const CODE = 'code-that-is-never-logged';
const VERIFIER = 'verifier-that-is-never-logged'.padEnd(43, 'v');

const UNAVAILABLE = {
  error: 'temporarily_unavailable',
  error_description: 'The authorization server cannot reach its storage; try again in 5 s.',
};

/** A façade whose core is at `coreUrl`, its log lines parsed into `lines`. */
async function startFacade(coreUrl: string, lines: Array<Record<string, unknown>>) {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((ready) => server.once('listening', ready));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const app = await createFacade({
    core: createInternalTransport({ baseUrl: coreUrl }),
    allowedHosts: [new URL(base).host],
    logger: createLogger('oauth-core-down', 'info', {
      write: (line: string) => lines.push(JSON.parse(line)),
    }),
    publicBaseUrl: base,
    oauth: testOAuthConfig(),
  });
  server.on('request', app.callback());
  return { server, base };
}

const REGISTRATION = {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ redirect_uris: ['https://client.example/cb'], token_endpoint_auth_method: 'none' }),
};

describe('the authorization server with core not answering', () => {
  let server: Server;
  let base: string;
  const lines: Array<Record<string, unknown>> = [];

  before(async () => {
    ({ server, base } = await startFacade('http://127.0.0.1:9', lines)); // nothing listens there
  });
  after(() => new Promise((done) => server?.close(done)));

  beforeEach(() => {
    lines.length = 0;
  });

  const expectUnavailable = async (res: Response, path: string) => {
    assert.equal(res.status, 503);
    assert.equal(res.headers.get('retry-after'), '5');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    // Logged once, as a warning with the request's id, route and core's code for the failed call.
    const warnings = lines.filter((line) => line.level === 'warn');
    assert.deepEqual(
      warnings.map(({ msg, path, status, core_code, request_id }) => ({
        msg,
        path,
        status,
        core_code,
        request_id,
      })),
      [
        {
          msg: 'authorization server: core unreachable',
          path,
          status: 503,
          core_code: 'Unavailable',
          request_id: res.headers.get('x-request-id'),
        },
      ],
    );
  };

  it('POST /register → 503, Retry-After 5, JSON temporarily_unavailable', async () => {
    const res = await fetch(`${base}/register`, REGISTRATION);
    await expectUnavailable(res, '/register');
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(await res.json(), UNAVAILABLE);
  });

  it('POST /token → 503, Retry-After 5, JSON temporarily_unavailable', async () => {
    const res = await fetch(`${base}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: 'some-client',
        code: CODE,
        code_verifier: VERIFIER,
        redirect_uri: 'https://client.example/cb',
      }),
    });
    await expectUnavailable(res, '/token');
    assert.deepEqual(await res.json(), UNAVAILABLE);
    for (const secret of [CODE, VERIFIER]) assert.ok(!JSON.stringify(lines).includes(secret), secret);
  });

  it('GET /authorize → a 503 page saying temporarily_unavailable, and no redirect to an unchecked URI', async () => {
    const query = new URLSearchParams({
      client_id: 'some-client',
      redirect_uri: 'https://client.example/cb',
      response_type: 'code',
      scope: 'scan:read',
      state: 's1',
      code_challenge: 'c'.repeat(43),
      code_challenge_method: 'S256',
    });
    const res = await fetch(`${base}/authorize?${query}`, {
      redirect: 'manual',
      headers: { accept: 'text/html' },
    });
    await expectUnavailable(res, '/authorize');
    assert.equal(res.headers.get('location'), null);
    const page = await res.text();
    assert.match(page, /<p id="error">temporarily_unavailable<\/p>/);
    assert.match(
      page,
      /<p id="description">The authorization server cannot reach its storage; try again in 5 s\.<\/p>/,
    );
  });
});

describe('the authorization server with core taking calls but answering none in time', () => {
  const lines: Array<Record<string, unknown>> = [];
  let core: Http2Server;
  let facade: Server;
  let base: string;

  before(async () => {
    core = createHttp2Server(); // streams taken, never answered
    await new Promise<void>((ready) => core.listen(0, '127.0.0.1', ready));
    const coreUrl = `http://127.0.0.1:${(core.address() as AddressInfo).port}`;
    ({ server: facade, base } = await startFacade(coreUrl, lines));
  });
  after(async () => {
    await new Promise((done) => facade?.close(done));
    await new Promise((done) => core?.close(done));
  });

  // The authorization server's own bound on a call to core (state-adapter.ts, 5 s) ends it.
  it("POST /register → 503; the warning carries core's DeadlineExceeded", async () => {
    const res = await fetch(`${base}/register`, REGISTRATION);
    assert.equal(res.status, 503);
    assert.deepEqual(await res.json(), UNAVAILABLE);
    const warnings = lines.filter((line) => line.level === 'warn');
    assert.deepEqual(
      warnings.map(({ msg, path, core_code }) => ({ msg, path, core_code })),
      [{ msg: 'authorization server: core unreachable', path: '/register', core_code: 'DeadlineExceeded' }],
    );
  });
});
