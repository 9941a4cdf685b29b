/**
 * The authorization response comes back in the redirect's query only (OAuth 2.1): the metadata advertises
 * no other mode, a client cannot register one, and a request asking for form_post or fragment is refused
 * in the query (`unsupported_response_mode`) before anyone signs in: oidc-provider's form_post page is
 * never rendered. Every answer to an authorization request carries the headers of the person's pages.
 */
import assert from 'node:assert/strict';
import { REDIRECT_URI } from '../support/oauth-client.ts';
import { authorize, authorizeUrl, pkce, register } from '../support/oauth-http.ts';
import { assertPageHeaders } from '../support/page-headers.ts';
import { type Stack, startStack } from '../support/stack.ts';

describe('authorization response modes', () => {
  let stack: Stack;
  let clientId: string;
  const { challenge } = pkce();
  const request = (params: Record<string, string>) =>
    authorize(
      authorizeUrl(stack.baseUrl, {
        client_id: clientId,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        ...params,
      }),
    );

  before(async () => {
    stack = await startStack('response-modes');
    clientId = (await register(stack.baseUrl)).body.client_id;
  });
  after(() => stack?.close());

  it('the metadata advertises the query response mode only', async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const res = await fetch(`${stack.baseUrl}${path}`);
      assert.equal(res.status, 200);
      assert.deepEqual(((await res.json()) as any).response_modes_supported, ['query'], path);
    }
  });

  /** The refusal every other mode gets: back to the client, in the query, before anyone signs in. */
  function assertRefusedInQuery(res: Awaited<ReturnType<typeof authorize>>, what: string) {
    assert.equal(res.status, 303, what);
    assert.equal(`${res.location?.origin}${res.location?.pathname}`, REDIRECT_URI, what);
    assert.equal(res.location?.hash, '', what);
    assert.equal(res.location?.searchParams.get('error'), 'unsupported_response_mode', what);
    assert.equal(res.location?.searchParams.get('state'), 'state-1', what);
    assert.equal(res.location?.searchParams.get('code'), null, what);
    // Every answer to an authorization request carries the page headers (were a page of oidc-provider's
    // own ever rendered, form_post's among them).
    assertPageHeaders(res.headers);
    assert.equal(res.headers.get('x-frame-options'), 'DENY', what);
    assert.match(
      res.headers.get('content-security-policy') ?? '',
      /script-src 'nonce-[^']+'; base-uri 'none'/,
    );
  }

  it('response_mode=form_post or fragment: refused in the query, no sign-in, no form page', async () => {
    for (const mode of ['form_post', 'fragment', 'form_post.jwt']) {
      const res = await request({ response_mode: mode });
      assertRefusedInQuery(res, mode);
      assert.doesNotMatch(res.text, /<form/, mode);
    }
    // Named twice, once as query: refused too.
    const url = authorizeUrl(stack.baseUrl, {
      client_id: clientId,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      response_mode: 'form_post',
    });
    url.searchParams.append('response_mode', 'query');
    const twice = await authorize(url);
    assert.equal(twice.status, 303);
    assert.equal(twice.location?.searchParams.get('code'), null);
    assert.doesNotMatch(twice.location?.pathname ?? '', /^\/interaction\//);
  });

  it('response_mode=query, or none, goes to the sign-in; an unknown client is still a 400 page', async () => {
    for (const mode of ['query', '']) {
      const res = await request({ response_mode: mode });
      assert.equal(res.status, 303, mode);
      assert.match(res.location!.pathname, /^\/interaction\/[\w-]+$/, mode);
      assertPageHeaders(res.headers);
    }
    const unknown = await request({ client_id: 'nobody', response_mode: 'form_post' });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.location, undefined);
    assertPageHeaders(unknown.headers);
  });

  it('a client registering another response mode is refused', async () => {
    for (const modes of [['form_post'], ['query', 'fragment']]) {
      const res = await register(stack.baseUrl, { response_modes: modes });
      assert.equal(res.status, 400, modes.join());
      assert.equal(res.body.error, 'invalid_client_metadata');
      assert.equal(res.body.error_description, 'response_modes: only query is supported');
    }
    const res = await register(stack.baseUrl, { response_modes: ['query'] });
    assert.equal(res.status, 201);
    assert.deepEqual(res.body.response_modes, ['query']);
  });
});
