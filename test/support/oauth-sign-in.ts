/**
 * A public client registered at the authorization server and a person (headless Chromium) who signs in at
 * the upstream provider Alpha and approves: the authorization code, or the tokens it is exchanged for.
 */
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { authorizeInBrowser, REDIRECT_URI } from './oauth-client.ts';
import { authorizeUrl, pkce, register, token } from './oauth-http.ts';

export interface SignInRequest {
  /** Authorization request parameters over the defaults (oauth-http.ts); '' leaves one out. */
  readonly extra?: Record<string, string>;
  /** Client metadata registered with the redirect URI. */
  readonly registration?: Record<string, unknown>;
}

export function signingIn(base: string, browser: Browser) {
  /** The code and its verifier for `login`, the client registered afresh. */
  async function codeFor(login: string, { extra = {}, registration = {} }: SignInRequest = {}) {
    const client = (await register(base, registration)).body;
    const { verifier, challenge } = pkce();
    const url = authorizeUrl(base, {
      client_id: client.client_id,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      ...extra,
    });
    const back = await authorizeInBrowser(browser, url, { provider: 'Alpha', login });
    return { clientId: client.client_id as string, verifier, code: back.searchParams.get('code')!, back };
  }

  async function tokensFor(login: string, request: SignInRequest = {}) {
    const { clientId, verifier, code } = await codeFor(login, request);
    const res = await token(base, {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT_URI,
      client_id: clientId,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return { clientId, tokens: res.body! };
  }

  return { codeFor, tokensFor };
}
