/**
 * Secrets never reach the logs through a request's path or the configuration: a façade configured like
 * facade/main.ts (loadFacadeConfig, createLogger) logs the route a request matched, not its path, and every
 * configured secret is redacted wherever it appears in a line, whatever its shape (short, `+ / .`, a PEM key).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createFacade } from '../../facade/app.ts';
import { routeTemplate } from '../../facade/route-template.ts';
import { freePort } from '../../scripts/port.ts';
import { loadFacadeConfig } from '../../services/shared/config.ts';
import { createInternalTransport } from '../../services/shared/internal-transport.ts';
import { createLogger, REDACTED, scrub } from '../../services/shared/logger.ts';

const IDP_SECRET = 'skinmatch-dev-secret-1';
const DB_PASSWORD = 'pg+pass/Word.9';
const COOKIE_KEY = `${randomBytes(30).toString('base64')}.+/x`;
const UPPER_TOKEN = randomBytes(32).toString('hex').toUpperCase();

describe('secrets in the façade’s logs', function () {
  this.timeout(60_000);
  const lines: string[] = [];
  let server: Server;
  let baseUrl: string;
  let dataDir: string;
  let signingKey: string;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'log-secrets-'));
    const config = loadFacadeConfig({
      NODE_ENV: 'development',
      DATA_DIR: dataDir,
      DATABASE_URL: `postgres://skinmatch:${encodeURIComponent(DB_PASSWORD)}@127.0.0.1:1/skinmatch`,
      OAUTH_COOKIE_KEYS: COOKIE_KEY,
      IDP_1_ISSUER: 'https://idp-one.example.com',
      IDP_1_CLIENT_ID: 'one',
      IDP_1_CLIENT_SECRET: IDP_SECRET,
    });
    signingKey = String((config.oauth.signingKey as Record<string, unknown>).d);
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    const logger = createLogger('facade', 'debug', sink);
    // Core is not running: no request here needs it.
    const core = createInternalTransport({
      baseUrl: `http://127.0.0.1:${await freePort()}`,
      defaultTimeoutMs: 2000,
    });
    const port = await freePort();
    const app = await createFacade({
      core,
      allowedHosts: [`127.0.0.1:${port}`],
      logger,
      publicBaseUrl: `http://127.0.0.1:${port}`,
      // No upstream is asked for its metadata here; the configured secret is still the logger's concern.
      oauth: { ...config.oauth, upstreams: [] },
    });
    server = app.listen(port, '127.0.0.1');
    await new Promise((ready) => server.once('listening', ready));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    logger.info(
      { note: `a message quoting ${IDP_SECRET} and ${DB_PASSWORD}` },
      `key ${COOKIE_KEY} ${signingKey}`,
    );
  });
  after(() => {
    server?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('logs neither an upper-case scan token nor a configured secret put in a request path', async () => {
    const paths = [
      `/scan/${UPPER_TOKEN}`,
      `/scan/${UPPER_TOKEN}/state`,
      `/${IDP_SECRET}`,
      `/scan/${IDP_SECRET}/nothing/here`,
      `/save/${encodeURIComponent(DB_PASSWORD)}`,
    ];
    for (const path of paths) await (await fetch(`${baseUrl}${path}`)).arrayBuffer();
    // A request's line is written once its answer has gone: waited for, as a fixed 200 ms assumed the last
    // one came within it, which a loaded machine need not.
    const requestLines = () => lines.map((line) => JSON.parse(line)).filter((line) => line.msg === 'request');
    for (let i = 0; i < 250 && requestLines().length < paths.length; i++)
      await new Promise((r) => setTimeout(r, 20));
    const requests = requestLines();
    assert.deepEqual(
      requests.map((line) => line.path),
      ['/scan/:id', '/scan/:id/state', '/…', '/scan/…', '/save/:id'],
    );
    const all = lines.join('\n');
    for (const secret of [
      UPPER_TOKEN,
      IDP_SECRET,
      DB_PASSWORD,
      encodeURIComponent(DB_PASSWORD),
      COOKIE_KEY,
      signingKey,
    ]) {
      assert.ok(!all.toLowerCase().includes(secret.toLowerCase()), `${secret.slice(0, 6)}… is not logged`);
    }
    assert.ok(all.includes(`a message quoting ${REDACTED} and ${REDACTED}`));
  });

  it('scrubs 64 hex characters in either case, and templates every route', () => {
    for (const hex of [
      UPPER_TOKEN,
      UPPER_TOKEN.toLowerCase(),
      `${UPPER_TOKEN.slice(0, 32)}${UPPER_TOKEN.slice(32).toLowerCase()}`,
    ]) {
      assert.equal(scrub(`{"msg":"seen ${hex}"}`), `{"msg":"seen ${REDACTED}"}`);
    }
    assert.equal(routeTemplate('/interaction/abc-DEF_1/upstream/2'), '/interaction/:uid/upstream/:provider');
    assert.equal(routeTemplate('/interaction/abc/consent'), '/interaction/:uid/consent');
    assert.equal(routeTemplate('/save/x/sign-in/1'), '/save/:id/sign-in/:provider');
    assert.equal(routeTemplate('/oauth/callback/1'), '/oauth/callback/:provider');
    assert.equal(routeTemplate('/scan/assets/page.js'), '/scan/assets/:file');
    assert.equal(routeTemplate('/scan/assets/0123456789abcdef/page.js'), '/scan/assets/:file');
    assert.equal(routeTemplate('/mcp/account/'), '/mcp/account/');
    assert.equal(routeTemplate('/token/revoke'), '/token/revoke');
  });
});
