/**
 * MCP clients as they really sign in: native ones (Claude Code, VS Code, Cursor) listen on a loopback port
 * or on their own URI scheme — a redirect URI still equals a registered one exactly, as the spec says, the
 * loopback port included; some look for the resource metadata at the root well-known form, or name the
 * endpoint with a trailing slash.
 */
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../support/browser.ts';
import {
  authorizeInBrowser,
  connectWithOAuth,
  interceptRedirect,
  MemoryOAuthClient,
} from '../support/oauth-client.ts';
import {
  authorize,
  authorizeUrl,
  decodeJwt,
  INVALID_GRANT,
  pkce,
  register,
  token,
} from '../support/oauth-http.ts';
import { type SignInStack, startSignInStack } from '../support/sign-in-stack.ts';

describe('native MCP clients signing in', function () {
  this.timeout(60_000);
  let stack: SignInStack;
  let browser: Browser;
  let base: string;

  before(async () => {
    stack = await startSignInStack('native-clients', ['Alpha', 'Beta']);
    base = stack.baseUrl;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await stack?.close();
  });

  /** Registers a public client with `registered`, signs in with `used` as redirect URI: code and verifier. */
  async function signIn(registered: string[], used: string, extra: Record<string, string> = {}) {
    const client = await register(base, { redirect_uris: registered, client_name: 'Native Agent' });
    assert.equal(client.status, 201, JSON.stringify(client.body));
    const { verifier, challenge } = pkce();
    const params = { client_id: client.body.client_id, redirect_uri: used, code_challenge: challenge };
    const url = authorizeUrl(base, { ...params, code_challenge_method: 'S256', ...extra });
    // Accepted: the person is sent to sign in, not back to the client with an error, nor shown a 400 page.
    const first = await authorize(url);
    assert.equal(first.status, 303, first.text);
    assert.match(first.location?.pathname ?? '', /^\/interaction\//, first.location?.href);
    const back = await authorizeInBrowser(browser, url, { provider: 'Alpha', login: 'nina' });
    const code = back.searchParams.get('code');
    assert.ok(code, back.href);
    return { clientId: client.body.client_id as string, code, verifier, back };
  }

  it('a native client’s loopback redirect URI: the code comes back to it; the token request must repeat it', async () => {
    const registered = 'http://localhost:53111/callback';
    const { clientId, code, verifier } = await signIn([registered], registered);
    const exchange = (redirect_uri: string) =>
      token(base, {
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri,
        client_id: clientId,
      });
    assert.deepEqual(await exchange('http://localhost:60222/callback'), INVALID_GRANT);
    const ok = await exchange(registered);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(decodeJwt(ok.body!.access_token).payload.aud, `${base}/mcp/account`);
  });

  it('a redirect URI equal to a registered one but for its loopback port, or anything else, is a 400 page (the spec: exactly)', async () => {
    const cases: Array<[string, string[]]> = [
      ['http://localhost:53111/callback', ['http://localhost:60222/callback', 'http://localhost/callback']],
      ['http://127.0.0.1/', ['http://127.0.0.1:40123/']],
      ['http://[::1]:8123/cb', ['http://[::1]:8124/cb']],
      [
        'http://localhost:53111/callback',
        [
          'http://localhost:53111/other',
          'http://localhost:53111/callback?x=1',
          'https://localhost:53111/callback',
          'http://127.0.0.1:53111/callback',
          'http://localhost.example:53111/callback',
        ],
      ],
    ];
    const { challenge } = pkce();
    for (const [registered, used] of cases) {
      const client = await register(base, { redirect_uris: [registered] });
      assert.equal(client.status, 201, JSON.stringify(client.body));
      assert.equal(client.body.application_type, 'native');
      for (const redirect of used) {
        const res = await authorize(
          authorizeUrl(base, {
            client_id: client.body.client_id,
            redirect_uri: redirect,
            code_challenge: challenge,
            code_challenge_method: 'S256',
          }),
        );
        assert.equal(res.status, 400, redirect);
        assert.equal(res.location, undefined, redirect);
        assert.match(res.text, /redirect_uri did not match any of the client&#39;s registered redirect_uris/);
      }
    }
  });

  it('a native application’s own URI scheme: registered, named on the consent page, the code sent there', async () => {
    const cursor = 'cursor://anysphere.cursor-mcp/oauth/callback';
    const vscode = 'vscode://vscode.github-authentication/did-authenticate';
    const client = await register(base, { redirect_uris: [cursor, vscode], client_name: 'Cursor' });
    assert.equal(client.status, 201, JSON.stringify(client.body));
    assert.deepEqual(client.body.redirect_uris, [cursor, vscode]);
    const { verifier, challenge } = pkce();
    const url = authorizeUrl(base, {
      client_id: client.body.client_id,
      redirect_uri: cursor,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const arrived = interceptRedirect(page, cursor);
      await page.goto(url.href);
      await page.getByRole('link', { name: 'Continue with Alpha' }).click();
      await page.getByLabel('Name').fill('carl');
      await page.getByRole('button', { name: 'Sign in' }).click();
      assert.match(
        (await page.locator('#return').textContent()) ?? '',
        /go back to cursor:\/\/anysphere\.cursor-mcp, which/,
      );
      await page.getByRole('button', { name: 'Allow' }).click();
      const back = await arrived;
      assert.equal(back.searchParams.get('state'), 'state-1');
      const res = await token(base, {
        grant_type: 'authorization_code',
        code: back.searchParams.get('code')!,
        code_verifier: verifier,
        redirect_uri: cursor,
        client_id: client.body.client_id,
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    } finally {
      await context.close();
    }
    for (const [uri, scheme] of [
      ['javascript://x/%0Aalert(1)', 'javascript'],
      ['data://text/html,x', 'data'],
      ['file:///etc/passwd', 'file'],
    ]) {
      assert.deepEqual(await register(base, { redirect_uris: [uri] }), {
        status: 400,
        body: {
          error: 'invalid_redirect_uri',
          error_description: `redirect_uris must not use the ${scheme} URI scheme`,
        },
      });
    }
  });

  it('the resource metadata answers at both RFC 9728 forms, the root one included', async () => {
    const suffixed = await fetch(`${base}/.well-known/oauth-protected-resource/mcp/account`);
    const root = await fetch(`${base}/.well-known/oauth-protected-resource`);
    assert.equal(root.status, 200);
    assert.equal(root.headers.get('access-control-allow-origin'), '*');
    const metadata = (await root.json()) as { resource: string };
    assert.deepEqual(metadata, await suffixed.json());
    assert.equal(metadata.resource, `${base}/mcp/account`);
  });

  it('the endpoint named with a trailing slash is the same resource: code, token and refresh (RFC 8707)', async () => {
    const slashed = `${base}/mcp/account/`;
    const redirect = 'http://127.0.0.1:45999/callback';
    const { clientId, code, verifier } = await signIn([redirect], redirect, { resource: slashed });
    const common = { client_id: clientId, resource: slashed };
    const got = await token(base, {
      ...common,
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: redirect,
    });
    assert.equal(got.status, 200, JSON.stringify(got.body));
    assert.equal(decodeJwt(got.body!.access_token).payload.aud, `${base}/mcp/account`);
    const refresh = { ...common, grant_type: 'refresh_token', refresh_token: got.body!.refresh_token };
    assert.deepEqual(await token(base, { ...refresh, resource: `${base}/mcp/account/x` }), {
      status: 400,
      body: { error: 'invalid_target', error_description: 'resource indicator is missing, or unknown' },
    });
    const refreshed = await token(base, refresh);
    assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
    assert.equal(decodeJwt(refreshed.body!.access_token).payload.aud, `${base}/mcp/account`);
  });

  it('the MCP SDK client as a native one on a loopback port: signs in, refreshes once the token is dead', async () => {
    const redirect = 'http://localhost:60333/callback';
    const oauth = new MemoryOAuthClient('none', { registered: redirect, used: redirect });
    const client = await connectWithOAuth(browser, base, oauth, { provider: 'Alpha', login: 'sdk-native' });
    try {
      assert.equal(oauth.authorizationUrl?.searchParams.get('redirect_uri'), redirect);
      const first = oauth.savedTokens!;
      oauth.savedTokens = { ...first, access_token: 'expired-or-revoked' };
      const listed = await client.callTool({ name: 'list_my_scans', arguments: {} });
      assert.equal(listed.isError, undefined, JSON.stringify(listed));
      assert.notEqual(oauth.savedTokens.refresh_token, first.refresh_token);
      assert.notEqual(oauth.savedTokens.access_token, 'expired-or-revoked');
    } finally {
      await client.close();
    }
  });
});
