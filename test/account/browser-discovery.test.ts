/**
 * OAuth discovery and registration as a browser-based MCP client runs them from its own page (MCP
 * Inspector at http://localhost:6274): the SDK fetches the resource metadata with an MCP-Protocol-Version
 * header and registers with a JSON body, so the browser asks first (CORS preflight) and then needs
 * Access-Control-Allow-Origin on the answer, errors included, to let the page read it.
 */
import assert from 'node:assert/strict';
import { REDIRECT_URI } from '../support/oauth-client.ts';
import { type Stack, startStack } from '../support/stack.ts';

const ORIGIN = 'http://localhost:6274';

describe('OAuth discovery and registration from a browser page on another origin', () => {
  let stack: Stack;

  before(async () => {
    stack = await startStack('browser-discovery', {
      limits: { callsPerMinute: 1000, scansPerHour: 1000, registrationsPerHour: 2 },
    });
  });
  after(() => stack?.close());

  const preflight = (path: string, method: string, headers: string) =>
    fetch(`${stack.baseUrl}${path}`, {
      method: 'OPTIONS',
      headers: {
        origin: ORIGIN,
        'access-control-request-method': method,
        'access-control-request-headers': headers,
      },
    });

  const cors = (res: Response) =>
    Object.fromEntries(
      ['allow-origin', 'allow-methods', 'allow-headers', 'expose-headers'].map((name) => [
        name,
        res.headers.get(`access-control-${name}`),
      ]),
    );

  it('the resource metadata: preflight for MCP-Protocol-Version, then the GET', async () => {
    const path = '/.well-known/oauth-protected-resource/mcp/account';
    const asked = await preflight(path, 'GET', 'mcp-protocol-version');
    assert.equal(asked.status, 204);
    assert.deepEqual(cors(asked), {
      'allow-origin': '*',
      'allow-methods': 'GET',
      'allow-headers': 'mcp-protocol-version',
      'expose-headers': null,
    });
    const res = await fetch(`${stack.baseUrl}${path}`, {
      headers: { origin: ORIGIN, 'mcp-protocol-version': '2025-11-25' },
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    assert.equal(((await res.json()) as { resource: string }).resource, `${stack.baseUrl}/mcp/account`);
  });

  it('registration: preflight for a JSON body, then the POST, its refusals readable too', async () => {
    const asked = await preflight('/register', 'POST', 'content-type');
    assert.equal(asked.status, 204);
    assert.deepEqual(cors(asked), {
      'allow-origin': '*',
      'allow-methods': 'POST',
      'allow-headers': 'content-type',
      'expose-headers': null,
    });
    const post = (metadata: Record<string, unknown>) =>
      fetch(`${stack.baseUrl}/register`, {
        method: 'POST',
        headers: { origin: ORIGIN, 'content-type': 'application/json' },
        body: JSON.stringify({ token_endpoint_auth_method: 'none', ...metadata }),
      });
    const created = await post({ redirect_uris: [`${ORIGIN}/oauth/callback`], client_name: 'Inspector' });
    assert.equal(created.status, 201);
    assert.equal(created.headers.get('access-control-allow-origin'), '*');
    assert.equal(typeof ((await created.json()) as { client_id: unknown }).client_id, 'string');
    // oidc-provider's own refusal (no redirect URI) and this façade's budget (429) reach the page too.
    const refused = await post({});
    assert.equal(refused.status, 400);
    assert.equal(refused.headers.get('access-control-allow-origin'), '*');
    assert.equal(((await refused.json()) as { error: string }).error, 'invalid_redirect_uri');
    const limited = await post({ redirect_uris: [REDIRECT_URI] });
    assert.equal(limited.status, 429);
    assert.deepEqual(
      [
        limited.headers.get('access-control-allow-origin'),
        limited.headers.get('access-control-expose-headers'),
      ],
      ['*', 'Retry-After'],
    );
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
  });
});
