import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { browserSuite } from '../support/browser.ts';
import { consentedScan, holdConsentCookie } from '../support/consent.ts';
import { callTool } from '../support/mcp.ts';
import { interceptRedirect, REDIRECT_URI } from '../support/oauth-client.ts';
import { authorizeUrl, pkce, register } from '../support/oauth-http.ts';
import { type SignInStack, startSignInStack } from '../support/sign-in-stack.ts';

/**
 * A sign-in at the upstream provider that does not sign the person in — they cancel there (the provider
 * answers `error=access_denied`), the provider fails, or the identity is anonymous — never ends on a page
 * with nowhere to go (F3): the OAuth client is sent back with an RFC 6749 error and its state, and the
 * save page leads back to the scan. No account is made.
 */
describe('a sign-in that does not happen', function () {
  this.timeout(60_000);
  let stack: SignInStack;
  const browser = browserSuite();

  before(async () => {
    stack = await startSignInStack('sign-in-cancel', ['Alpha', 'Beta']);
  });
  after(async () => {
    await stack?.close();
  });

  const countAccounts = async () =>
    Number((await stack.orm.em.getConnection().execute('select count(*) as n from accounts'))[0]?.n);

  async function newPage(secret?: string): Promise<Page> {
    const context = await browser.newContext();
    if (secret) await holdConsentCookie(context, stack.baseUrl, secret);
    return context.newPage();
  }

  /** Opens /authorize (state `state-1`) and goes on to `provider`'s sign-in; answers the state sent there. */
  async function toProvider(page: Page, provider = 'Alpha') {
    const client = (await register(stack.baseUrl, { client_name: 'Helpful Agent' })).body;
    const url = authorizeUrl(stack.baseUrl, {
      client_id: client.client_id,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    });
    const arrived = interceptRedirect(page);
    await page.goto(url.href);
    return { arrived, upstreamState: await clickThrough(page, provider) };
  }

  /** Clicks "Continue with provider"; answers the state our sign-in sent to the provider. */
  async function clickThrough(page: Page, provider: string): Promise<string> {
    const issuer = stack.upstreams.find((u) => u.provider.name === provider)!.provider.issuer;
    const sent = page.waitForRequest((r) => r.url().startsWith(`${issuer}/auth`));
    await page.getByRole('link', { name: `Continue with ${provider}` }).click();
    const state = new URL((await sent).url()).searchParams.get('state')!;
    await page.getByLabel('Name').waitFor();
    return state;
  }

  /** Opens a URL that ends at the client's redirect URI (port 9: Chromium calls the navigation unsafe). */
  async function visit(page: Page, url: string) {
    await page.goto(url).catch(() => undefined);
  }

  it('cancelling at the provider sends the client back with access_denied and its state', async () => {
    const before = await countAccounts();
    const page = await newPage();
    const { arrived } = await toProvider(page);
    await page.getByRole('button', { name: 'Cancel' }).click();
    const back = await arrived;
    assert.equal(back.origin + back.pathname, REDIRECT_URI);
    assert.equal(back.searchParams.get('error'), 'access_denied');
    assert.equal(back.searchParams.get('error_description'), 'The person cancelled signing in with Alpha.');
    assert.equal(back.searchParams.get('state'), 'state-1');
    assert.equal(back.searchParams.get('iss'), stack.baseUrl);
    assert.equal(back.searchParams.get('code'), null);
    assert.equal(await countAccounts(), before);
  });

  for (const [answered, error, description] of [
    ['temporarily_unavailable', 'temporarily_unavailable', 'Alpha is unavailable; try again later.'],
    ['server_error', 'server_error', 'Signing in with Alpha did not work.'],
    ['invalid_scope', 'server_error', 'Signing in with Alpha did not work.'],
  ]) {
    it(`the provider answering ${answered} sends the client back with ${error}`, async () => {
      const page = await newPage();
      const { arrived, upstreamState } = await toProvider(page);
      await visit(page, `${stack.baseUrl}/oauth/callback/1?error=${answered}&state=${upstreamState}`);
      const back = await arrived;
      assert.equal(back.searchParams.get('error'), error);
      assert.equal(back.searchParams.get('error_description'), description);
      assert.equal(back.searchParams.get('state'), 'state-1');
    });
  }

  it('an answer that does not check out (another state) sends the client back with server_error', async () => {
    const page = await newPage();
    const { arrived } = await toProvider(page);
    await visit(page, `${stack.baseUrl}/oauth/callback/1?code=made-up&state=not-the-one`);
    const back = await arrived;
    assert.equal(back.searchParams.get('error'), 'server_error');
    assert.equal(back.searchParams.get('state'), 'state-1');
  });

  it('an anonymous identity: the person is told why, may sign in another way, or go back; the client gets access_denied', async () => {
    const before = await countAccounts();
    const page = await newPage();
    const { arrived } = await toProvider(page);
    await page.getByLabel('Name').fill('anonymous');
    const refused = page.waitForResponse((r) => r.url().includes('/oauth/callback/1'));
    await page.getByRole('button', { name: 'Sign in' }).click();
    assert.equal((await refused).status(), 403);
    assert.equal(await page.title(), 'You are not signed in');
    assert.equal(
      await page.textContent('#description'),
      'Alpha signed you in anonymously, and skinmatch needs a named account. Sign in with a named Alpha ' +
        'account or another provider, or go back to the app without signing in.',
    );
    assert.deepEqual(await page.getByRole('link').allTextContents(), [
      'Sign in another way',
      'Go back to the app',
    ]);
    assert.equal(await countAccounts(), before);

    await page.getByRole('link', { name: 'Go back to the app' }).click();
    const back = await arrived;
    assert.equal(back.searchParams.get('error'), 'access_denied');
    assert.equal(
      back.searchParams.get('error_description'),
      'The person signed in anonymously with Alpha; a named account is needed.',
    );
    assert.equal(back.searchParams.get('state'), 'state-1');
    assert.equal(await countAccounts(), before);
  });

  it('after an anonymous identity, signing in another way reaches the consent page', async () => {
    const page = await newPage();
    await toProvider(page);
    await page.getByLabel('Name').fill('firebase-anonymous');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Sign in another way' }).click();
    assert.equal(await page.title(), 'Sign in to skinmatch');
    await clickThrough(page, 'Beta');
    await page.getByLabel('Name').fill('named');
    await page.getByRole('button', { name: 'Sign in' }).click();
    assert.equal(await page.title(), 'Allow access?');
  });

  describe('on the save page', () => {
    async function savePage() {
      const scan = await consentedScan(stack);
      const page = await newPage(scan.browserSecret);
      const { structuredContent } = await callTool(stack.baseUrl, 'get_skin_scan', {
        run_id: scan.runId,
        access_token: scan.accessToken,
      });
      await page.goto(structuredContent.save_url);
      return { page, url: structuredContent.save_url as string, runId: scan.runId };
    }

    async function assertLeadsBack(page: Page, url: string, text: string) {
      assert.equal(await page.title(), 'You are not signed in');
      assert.equal(await page.textContent('#description'), text);
      const body = (await page.textContent('body')) ?? '';
      assert.doesNotMatch(body, /access_denied|sign_in_failed|anonymous_identity|server_error/);
      const back = page.getByRole('link', { name: 'Back to your scan' });
      assert.equal(await back.getAttribute('href'), new URL(url).pathname);
      await back.click();
      await page.waitForURL(url);
      assert.equal(await page.title(), 'Save your skin scan');
      assert.equal(await page.getByRole('link', { name: 'Continue with Alpha' }).count(), 1);
    }

    it('cancelling at the provider says so and leads back to the scan; nothing is saved', async () => {
      const before = await countAccounts();
      const { page, url, runId } = await savePage();
      await clickThrough(page, 'Beta');
      const answer = page.waitForResponse((r) => r.url().includes('/oauth/callback/2'));
      await page.getByRole('button', { name: 'Cancel' }).click();
      assert.equal((await answer).status(), 200);
      await assertLeadsBack(page, url, 'You cancelled signing in with Beta. Nothing was saved.');
      assert.equal(await countAccounts(), before);
      const owner = await stack.orm.em
        .getConnection()
        .execute('select account_id from scans where id = ?', [runId]);
      assert.equal(owner[0]?.account_id, null);
    });

    it('a provider failing says so, in words, and leads back to the scan', async () => {
      const { page, url } = await savePage();
      const state = await clickThrough(page, 'Alpha');
      const res = await page.goto(`${stack.baseUrl}/oauth/callback/1?error=server_error&state=${state}`);
      assert.equal(res?.status(), 502);
      await assertLeadsBack(
        page,
        url,
        'Signing in with Alpha did not work. Nothing was saved; you can try again.',
      );
    });

    it('an anonymous identity is refused in words, with the way back to the scan', async () => {
      const before = await countAccounts();
      const { page, url } = await savePage();
      await clickThrough(page, 'Alpha');
      await page.getByLabel('Name').fill('anonymous');
      const answer = page.waitForResponse((r) => r.url().includes('/oauth/callback/1'));
      await page.getByRole('button', { name: 'Sign in' }).click();
      assert.equal((await answer).status(), 403);
      await assertLeadsBack(
        page,
        url,
        'Alpha signed you in anonymously, and an anonymous sign-in cannot keep a scan. Nothing was saved. ' +
          'To save it, sign in with a named account.',
      );
      assert.equal(await countAccounts(), before);
    });
  });
});
