/**
 * Every answer of the façade carries the headers that keep a browser safe, not only the person's pages:
 * whatever no route answers (`/`, a mistyped path), the JSON answers and the discovery document cannot be
 * framed, sniffed into HTML or run anything, and hand no URL on as a Referer. Behind TLS, HSTS too.
 */
import assert from 'node:assert/strict';
import { authorizeUrl, pkce, register } from '../support/oauth-http.ts';
import { type Stack, startStack } from '../support/stack.ts';

const DEFAULT_CSP = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function assertProtected(res: Response, label: string): void {
  assert.equal(res.headers.get('cross-origin-resource-policy'), 'same-origin', label);
  const opener = label.startsWith('/interaction/') ? null : 'same-origin'; // the authorization flow's: none
  assert.equal(res.headers.get('cross-origin-opener-policy'), opener, label);
  assert.match(res.headers.get('permissions-policy') ?? '', /^camera=\(\), .*microphone=\(\), /, label);
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff', label);
  assert.equal(res.headers.get('x-frame-options'), 'DENY', label);
  assert.equal(res.headers.get('referrer-policy'), 'no-referrer', label);
  assert.match(
    res.headers.get('content-security-policy') ?? '',
    /^default-src 'none';.*frame-ancestors 'none'/,
    label,
  );
}

describe('security headers on every answer', function () {
  this.timeout(60_000);
  let stack: Stack;

  before(async () => {
    stack = await startStack('security-headers', { facade: { trustProxy: true } });
  });
  after(() => stack?.close());

  it('a path no route answers is a 404 that nothing can frame, sniff or script', async () => {
    for (const path of ['/', '/nope', '/scan', '/save', '/interaction/x/y/z', '/scan/assets/x/y']) {
      const res = await fetch(`${stack.baseUrl}${path}`);
      assert.equal(res.status, 404, path);
      assertProtected(res, path);
      assert.equal(res.headers.get('content-security-policy'), DEFAULT_CSP, path);
    }
  });

  it('JSON answers and the discovery document carry them too', async () => {
    const answers = {
      health: await fetch(`${stack.baseUrl}/health`),
      discovery: await fetch(`${stack.baseUrl}/.well-known/oauth-authorization-server`),
      mcp: await fetch(`${stack.baseUrl}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      }),
      unauthorised: await fetch(`${stack.baseUrl}/mcp/account`, { method: 'POST' }),
    };
    assert.deepEqual(Object.fromEntries(Object.entries(answers).map(([k, v]) => [k, v.status])), {
      health: 200,
      discovery: 200,
      mcp: 200,
      unauthorised: 401,
    });
    for (const [label, res] of Object.entries(answers)) assertProtected(res, label);
  });

  it('the upload page may use the camera from its own origin; the authorization flow has no opener policy', async () => {
    const scan = await fetch(`${stack.baseUrl}/scan/00000000-0000-4000-8000-000000000000`);
    assert.equal(scan.status, 404);
    assert.match(scan.headers.get('permissions-policy') ?? '', /^camera=\(self\), .*microphone=\(\), /);
    for (const path of ['/authorize', '/interaction/x', '/oauth/callback/x']) {
      const res = await fetch(`${stack.baseUrl}${path}`, { redirect: 'manual' });
      assert.equal(res.headers.get('cross-origin-opener-policy'), null, path);
      assert.equal(res.headers.get('cross-origin-resource-policy'), 'same-origin', path);
      assert.match(res.headers.get('permissions-policy') ?? '', /^camera=\(\), /, path);
    }
  });

  it('HSTS on a request that came over TLS (the trusted proxy says so), none over plain http', async () => {
    const tls = await fetch(`${stack.baseUrl}/nope`, { headers: { 'x-forwarded-proto': 'https' } });
    assert.equal(tls.headers.get('strict-transport-security'), 'max-age=31536000');
    const scan = await fetch(`${stack.baseUrl}/scan/00000000-0000-4000-8000-000000000000`, {
      headers: { 'x-forwarded-proto': 'https' },
    });
    assert.equal(scan.status, 404);
    assert.equal(scan.headers.get('strict-transport-security'), 'max-age=31536000');
    const plain = await fetch(`${stack.baseUrl}/nope`);
    assert.equal(plain.headers.get('strict-transport-security'), null);
  });
});

describe('cookies behind TLS that ends at a proxy the façade does not trust', function () {
  this.timeout(60_000);
  let stack: Stack;

  before(async () => {
    // PUBLIC_BASE_URL https, TRUST_PROXY unset (the chart's default): every request looks like plain http.
    stack = await startStack('secure-cookies', { facade: { publicBaseUrl: 'https://skinmatch.example' } });
  });
  after(() => stack?.close());

  it("oidc-provider's interaction cookies are Secure (its session cookie is written by the same code)", async () => {
    const client = (await register(stack.baseUrl)).body;
    const res = await fetch(
      authorizeUrl(stack.baseUrl, {
        resource: '',
        client_id: client.client_id,
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      }),
      { redirect: 'manual' },
    );
    assert.equal(res.status, 303);
    const lines = res.headers.getSetCookie();
    assert.deepEqual(lines.map((l) => l.split('=')[0]).sort(), [
      '__Secure-interaction',
      '__Secure-interaction-resume',
      '__Secure-interaction-resume.sig',
      '__Secure-interaction.sig',
    ]);
    for (const line of lines) {
      assert.match(line, /; secure(;|$)/i, line);
      assert.match(line, /; httponly(;|$)/i, line);
      assert.match(line, /; samesite=lax(;|$)/i, line);
    }
  });
});
