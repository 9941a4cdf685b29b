import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { REFRESH_REUSE_GRACE_S } from '../../facade/oauth/state-adapter.ts';
import { accountRpc } from '../support/bearer.ts';
import { launchBrowser } from '../support/browser.ts';
import { authorizeInBrowser, REDIRECT_URI } from '../support/oauth-client.ts';
import {
  authorize,
  authorizeUrl,
  decodeJwt,
  INVALID_GRANT,
  pkce,
  register,
  token,
} from '../support/oauth-http.ts';
import { signingIn } from '../support/oauth-sign-in.ts';
import { assertPageHeaders } from '../support/page-headers.ts';
import { refreshesUsedSecondsAgo, type SignInStack, startSignInStack } from '../support/sign-in-stack.ts';

type SignIn = ReturnType<typeof signingIn>;

describe('the authorization server', function () {
  this.timeout(60_000);
  let stack: SignInStack;
  let browser: Browser;
  let base: string;

  before(async () => {
    stack = await startSignInStack('authorization-server', ['Alpha', 'Beta']);
    base = stack.baseUrl;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await stack?.close();
  });

  const codeFor: SignIn['codeFor'] = (...args) => signingIn(base, browser).codeFor(...args);
  const tokensFor: SignIn['tokensFor'] = (...args) => signingIn(base, browser).tokensFor(...args);

  describe('metadata and registration', () => {
    it('RFC 8414 metadata offers exactly what the spec offers', async () => {
      const res = await fetch(`${base}/.well-known/oauth-authorization-server`);
      assert.equal(res.status, 200);
      const m = (await res.json()) as Record<string, unknown>;
      assert.equal(m.issuer, base);
      assert.equal(m.authorization_endpoint, `${base}/authorize`);
      assert.equal(m.token_endpoint, `${base}/token`);
      assert.equal(m.registration_endpoint, `${base}/register`);
      assert.equal(m.revocation_endpoint, `${base}/token`);
      assert.deepEqual([...(m.revocation_endpoint_auth_methods_supported as string[])].sort(), [
        'client_secret_basic',
        'client_secret_post',
        'none',
      ]);
      assert.deepEqual(m.response_types_supported, ['code']);
      assert.deepEqual(m.code_challenge_methods_supported, ['S256']);
      assert.deepEqual(m.grant_types_supported, ['authorization_code', 'refresh_token']);
      assert.deepEqual([...(m.token_endpoint_auth_methods_supported as string[])].sort(), [
        'client_secret_basic',
        'client_secret_post',
        'none',
      ]);
      for (const off of [
        'userinfo_endpoint',
        'end_session_endpoint',
        'device_authorization_endpoint',
        'pushed_authorization_request_endpoint',
        'dpop_signing_alg_values_supported',
        'introspection_endpoint',
      ]) {
        assert.equal(m[off], undefined, `${off} is advertised`);
      }
    });

    it('RFC 9728 metadata names the resource and this authorization server', async () => {
      const res = await fetch(`${base}/.well-known/oauth-protected-resource/mcp/account`);
      assert.deepEqual(await res.json(), {
        resource: `${base}/mcp/account`,
        authorization_servers: [base],
        scopes_supported: ['scan:write', 'scan:read', 'catalog:read'],
        bearer_methods_supported: ['header'],
        resource_name: 'skinmatch account endpoint',
      });
    });

    it('registers a client without scope; as native, or as web if it names https on a loopback host', async () => {
      const plain = await register(base);
      assert.equal(plain.status, 201);
      assert.match(plain.body.client_id, /\S+/);
      assert.equal(plain.body.application_type, 'native');
      const web = await register(base, {
        application_type: 'native',
        redirect_uris: ['https://localhost:8443/cb', 'http://127.0.0.1:8080/cb'],
      });
      assert.equal(web.status, 201, JSON.stringify(web.body));
      assert.equal(web.body.application_type, 'web');
    });

    it('the development interactions of oidc-provider are not served', async () => {
      assert.equal((await fetch(`${base}/interaction/nope`)).status, 400);
      assert.equal((await fetch(`${base}/me`)).status, 404);
      assert.equal((await fetch(`${base}/device/auth`, { method: 'POST' })).status, 404);
      assert.equal((await fetch(`${base}/request`, { method: 'POST' })).status, 404);
    });
  });

  describe('/authorize refuses', () => {
    let clientId: string;
    const { challenge } = pkce();
    before(async () => {
      clientId = (await register(base)).body.client_id;
    });

    const redirectError = async (query: Record<string, string>) => {
      const res = await authorize(authorizeUrl(base, { client_id: clientId, ...query }));
      assert.equal(res.status, 303);
      assert.equal(res.location?.origin + res.location!.pathname, REDIRECT_URI);
      // A refused response_type=token answers in the fragment, as that response type would.
      const params = res.location!.search
        ? res.location!.searchParams
        : new URLSearchParams(res.location!.hash.slice(1));
      return { error: params.get('error'), description: params.get('error_description') };
    };

    it('plain PKCE', async () => {
      assert.deepEqual(await redirectError({ code_challenge: challenge, code_challenge_method: 'plain' }), {
        error: 'invalid_request',
        description: 'not supported value of code_challenge_method',
      });
    });

    it('no PKCE', async () => {
      assert.deepEqual(await redirectError({}), {
        error: 'invalid_request',
        description: 'Authorization Server policy requires PKCE to be used for this request',
      });
    });

    it('response_type=token', async () => {
      assert.deepEqual(
        await redirectError({
          response_type: 'token',
          code_challenge: challenge,
          code_challenge_method: 'S256',
        }),
        { error: 'unsupported_response_type', description: 'unsupported response_type requested' },
      );
    });

    it('a redirect URI that is not exactly the registered one: HTTP 400 page, no Location', async () => {
      const redirects = [`${REDIRECT_URI}/`, 'http://127.0.0.1:10/callback', 'http://localhost:9/callback'];
      for (const redirect of [...redirects, `${REDIRECT_URI}?x=1`]) {
        const res = await authorize(
          authorizeUrl(base, {
            client_id: clientId,
            redirect_uri: redirect,
            code_challenge: challenge,
            code_challenge_method: 'S256',
          }),
        );
        assert.equal(res.status, 400, redirect);
        assert.equal(res.location, undefined);
        assert.match(
          res.text,
          /invalid_redirect_uri<\/p><p id="description">redirect_uri did not match any of the client&#39;s registered redirect_uris/,
        );
      }
    });

    it('an unknown client: HTTP 400 page, no Location', async () => {
      const res = await authorize(
        authorizeUrl(base, {
          client_id: 'no-such-client',
          code_challenge: challenge,
          code_challenge_method: 'S256',
        }),
      );
      assert.equal(res.status, 400);
      assert.equal(res.location, undefined);
      assert.match(res.text, /invalid_client/);
      assertPageHeaders(res.headers);
    });
  });

  describe('tokens', () => {
    it('an access token is a short-lived at+jwt for {base_url}/mcp/account; a refresh token comes with it', async () => {
      const { tokens } = await tokensFor('tess');
      assert.equal(tokens.token_type, 'Bearer');
      assert.equal(tokens.expires_in, 600);
      assert.equal(tokens.scope, 'scan:read scan:write catalog:read');
      assert.match(tokens.refresh_token, /\S{20,}/);
      const { header, payload } = decodeJwt(tokens.access_token);
      assert.equal(header.typ, 'at+jwt');
      assert.equal(header.alg, 'ES256');
      assert.equal(payload.aud, `${base}/mcp/account`);
      assert.equal(payload.iss, base);
      assert.equal(payload.exp - payload.iat, 600);
    });

    it('a request naming none of the scopes gets the client’s registered scope, or every scope (RFC 6749 §3.3)', async () => {
      const granted = (tokens: Record<string, any>) => String(tokens.scope).split(' ').sort();
      // Left out, as the RFC allows: every scope (before, access_denied after the person signed in).
      assert.deepEqual(granted((await tokensFor('nell', { extra: { scope: '' } })).tokens), [
        'catalog:read',
        'scan:read',
        'scan:write',
      ]);
      // Only another server's word: the client's registered scope.
      const registered = await tokensFor('nell', {
        extra: { scope: 'claudeai' },
        registration: { scope: 'scan:read catalog:read' },
      });
      assert.deepEqual(granted(registered.tokens), ['catalog:read', 'scan:read']);
      // A request that names one of ours is taken as it is.
      assert.deepEqual(granted((await tokensFor('nell', { extra: { scope: 'scan:read' } })).tokens), [
        'scan:read',
      ]);
    });

    it('a reused authorization code is refused', async () => {
      const { clientId, verifier, code } = await codeFor('rita');
      const form = {
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: REDIRECT_URI,
        client_id: clientId,
      };
      assert.equal((await token(base, form)).status, 200);
      assert.deepEqual(await token(base, form), {
        status: 400,
        body: { error: 'invalid_grant', error_description: 'grant request is invalid' },
      });
    });

    it('revocation at /token ends the grant: its access token is refused at once, and a refresh after it', async () => {
      const { clientId, tokens } = await tokensFor('val');
      const bearer = `Bearer ${tokens.access_token}`;
      assert.equal(decodeJwt(tokens.access_token).payload.gid.length > 0, true);
      assert.equal((await accountRpc(base, bearer, 'tools/list')).status, 200);
      const revoked = await token(base, {
        token: tokens.refresh_token,
        token_type_hint: 'refresh_token',
        client_id: clientId,
      });
      assert.deepEqual(revoked, { status: 200, body: undefined });
      const refused = await accountRpc(base, bearer, 'tools/list');
      assert.equal(refused.status, 401);
      assert.match(refused.challenge!, /error="invalid_token"/);
      const after = await token(base, {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: clientId,
      });
      assert.deepEqual(after, {
        status: 400,
        body: { error: 'invalid_grant', error_description: 'grant request is invalid' },
      });
    });

    for (const method of ['client_secret_basic', 'client_secret_post'] as const) {
      it(`a confidential client (${method}): code, refresh with rotation, revocation at /token, refresh after it`, async () => {
        const client = (await register(base, { token_endpoint_auth_method: method })).body;
        const basic = `Basic ${Buffer.from(
          `${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`,
        ).toString('base64')}`;
        /** A token request authenticated the client's way. */
        const call = (form: Record<string, string>) =>
          method === 'client_secret_post'
            ? token(base, { ...form, client_id: client.client_id, client_secret: client.client_secret })
            : token(base, form, { authorization: basic });
        const { verifier, challenge } = pkce();
        const back = await authorizeInBrowser(
          browser,
          authorizeUrl(base, {
            client_id: client.client_id,
            code_challenge: challenge,
            code_challenge_method: 'S256',
          }),
          { provider: 'Beta', login: `conf-${method}` },
        );
        const code = back.searchParams.get('code')!;
        // Without its secret the client is not authenticated.
        assert.deepEqual(
          await token(base, {
            grant_type: 'authorization_code',
            code,
            code_verifier: verifier,
            redirect_uri: REDIRECT_URI,
            client_id: client.client_id,
          }),
          {
            status: 401,
            body: { error: 'invalid_client', error_description: 'client authentication failed' },
          },
        );
        const issued = await call({
          grant_type: 'authorization_code',
          code,
          code_verifier: verifier,
          redirect_uri: REDIRECT_URI,
        });
        assert.equal(issued.status, 200, JSON.stringify(issued.body));
        const refreshed = await call({
          grant_type: 'refresh_token',
          refresh_token: issued.body!.refresh_token,
        });
        assert.equal(refreshed.status, 200);
        assert.notEqual(refreshed.body!.refresh_token, issued.body!.refresh_token);
        assert.equal(decodeJwt(refreshed.body!.access_token).header.typ, 'at+jwt');
        await refreshesUsedSecondsAgo(stack, REFRESH_REUSE_GRACE_S);
        assert.deepEqual(
          await call({ grant_type: 'refresh_token', refresh_token: issued.body!.refresh_token }),
          INVALID_GRANT,
        );
        assert.deepEqual(
          await call({ token: refreshed.body!.refresh_token, token_type_hint: 'refresh_token' }),
          {
            status: 200,
            body: undefined,
          },
        );
        assert.deepEqual(
          await call({ grant_type: 'refresh_token', refresh_token: refreshed.body!.refresh_token }),
          INVALID_GRANT,
        );
      });
    }

    it('a client cannot revoke another client’s token', async () => {
      const victim = await tokensFor('vic');
      const other = (await register(base)).body;
      assert.deepEqual(
        await token(base, { token: victim.tokens.refresh_token, client_id: other.client_id }),
        { status: 200, body: undefined },
      );
      const refreshed = await token(base, {
        grant_type: 'refresh_token',
        refresh_token: victim.tokens.refresh_token,
        client_id: victim.clientId,
      });
      assert.equal(refreshed.status, 200, 'the victim’s refresh token still works');
    });

    it('a token for a foreign resource is refused', async () => {
      const { clientId, verifier, code } = await codeFor('fred');
      const res = await token(base, {
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: REDIRECT_URI,
        client_id: clientId,
        resource: 'https://elsewhere.example/api',
      });
      assert.deepEqual(res, {
        status: 400,
        body: { error: 'invalid_target', error_description: 'resource indicator is missing, or unknown' },
      });
    });
  });
});
