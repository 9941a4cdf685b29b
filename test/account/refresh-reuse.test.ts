/**
 * Refresh tokens rotate on every use, and a used one presented again ends the whole grant, except within
 * REFRESH_REUSE_GRACE_S of its first use (a client refreshing in parallel, or retrying an answer it lost).
 * Within the grace the grant still never forks: only the newest successor of a token lives, and a
 * superseded one presented later ends the grant (docs/design-notes.md, "Tokens").
 */
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { REFRESH_REUSE_GRACE_S } from '../../facade/oauth/state-adapter.ts';
import { accountRpc } from '../support/bearer.ts';
import { launchBrowser } from '../support/browser.ts';
import { decodeJwt, INVALID_GRANT, token } from '../support/oauth-http.ts';
import { signingIn } from '../support/oauth-sign-in.ts';
import { refreshesUsedSecondsAgo, type SignInStack, startSignInStack } from '../support/sign-in-stack.ts';

describe('refresh token reuse', function () {
  this.timeout(60_000);
  let stack: SignInStack;
  let browser: Browser;

  before(async () => {
    stack = await startSignInStack('refresh-reuse', ['Alpha']);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await stack?.close();
  });

  /** A person signed in afresh, and a refresh of the client's. */
  async function signedIn(login: string) {
    const { clientId, tokens } = await signingIn(stack.baseUrl, browser).tokensFor(login);
    const refresh = async (refreshToken: string) =>
      token(stack.baseUrl, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });
    return { refreshToken: tokens.refresh_token as string, refresh };
  }

  it('a retry within the grace is served; its successor lives on, and reuse past the grace ends the grant', async () => {
    const { refreshToken, refresh } = await signedIn('ria');
    const lost = await refresh(refreshToken);
    const retried = await refresh(refreshToken);
    assert.equal(lost.status, 200);
    assert.equal(retried.status, 200);
    assert.equal(decodeJwt(retried.body!.access_token).payload.aud, `${stack.baseUrl}/mcp/account`);
    const next = await refresh(retried.body!.refresh_token);
    assert.equal(next.status, 200, 'the retry’s token rotates on');
    assert.equal((await refresh(next.body!.refresh_token)).status, 200);
    await refreshesUsedSecondsAgo(stack, REFRESH_REUSE_GRACE_S);
    assert.deepEqual(await refresh(refreshToken), INVALID_GRANT, 'reuse past the grace');
  });

  it('a reuse within the grace supersedes the first successor: presenting it ends the whole grant', async () => {
    const { refreshToken, refresh } = await signedIn('sam');
    const first = await refresh(refreshToken);
    const second = await refresh(refreshToken);
    assert.deepEqual([first.status, second.status], [200, 200]);
    assert.deepEqual(await refresh(first.body!.refresh_token), INVALID_GRANT, 'the superseded successor');
    assert.deepEqual(await refresh(second.body!.refresh_token), INVALID_GRANT, 'the grant ended');
    const bearer = `Bearer ${second.body!.access_token}`;
    assert.equal((await accountRpc(stack.baseUrl, bearer, 'tools/list')).status, 401);
  });

  it('a reuse within the grace after the successor was used ends the grant', async () => {
    const { refreshToken, refresh } = await signedIn('ted');
    const first = await refresh(refreshToken);
    const onward = await refresh(first.body!.refresh_token);
    assert.equal(onward.status, 200);
    assert.deepEqual(await refresh(refreshToken), INVALID_GRANT, 'the chain had moved on');
    assert.deepEqual(await refresh(onward.body!.refresh_token), INVALID_GRANT, 'the grant ended');
  });

  it('parallel refreshes with one token are all served; only the newest successor lives', async () => {
    const { refreshToken, refresh } = await signedIn('rob');
    const parallel = await Promise.all([1, 2, 3].map(() => refresh(refreshToken)));
    const newest = await refresh(refreshToken); // surely after the parallel ones
    assert.deepEqual(
      [...parallel, newest].map((r) => r.status),
      [200, 200, 200, 200],
    );
    const rotated = [...parallel, newest].map((r) => r.body!.refresh_token as string);
    assert.equal(new Set([refreshToken, ...rotated]).size, 5);
    const onward = await refresh(rotated[3]!);
    assert.equal(onward.status, 200, 'the newest successor works');
    assert.deepEqual(await refresh(rotated[0]!), INVALID_GRANT, 'an older one is a reused token');
    assert.deepEqual(await refresh(onward.body!.refresh_token), INVALID_GRANT, 'the grant ended');
  });
});
