import assert from 'node:assert/strict';
import pg from 'pg';
import type { BrowserContext, Page } from 'playwright-core';
import { accountRpc, mintToken } from '../support/bearer.ts';
import { browserSuite } from '../support/browser.ts';
import { type ConsentedScan, consentedScan, holdConsentCookie } from '../support/consent.ts';
import { untilWaitingOnLock } from '../support/locks.ts';
import { callTool } from '../support/mcp.ts';
import { assertPageHeaders } from '../support/page-headers.ts';
import { type SignInStack, startSignInStack } from '../support/sign-in-stack.ts';
import type { RunningUpstream } from '../support/upstream.ts';

describe('the save page /save/:id in a browser', function () {
  this.timeout(60_000);
  let stack: SignInStack;
  let base: string;
  const browser = browserSuite();

  before(async () => {
    stack = await startSignInStack('save-page', ['Alpha', 'Beta']);
    base = stack.baseUrl;
  });
  after(async () => {
    await stack?.close();
  });

  /** A fresh browser; with `secret`, the one that consented on the upload page. */
  async function openBrowser(secret?: string): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext();
    if (secret) await holdConsentCookie(context, base, secret);
    return { context, page: await context.newPage() };
  }

  async function saveUrl(scan: ConsentedScan): Promise<string> {
    const state = await callTool(base, 'get_skin_scan', {
      run_id: scan.runId,
      access_token: scan.accessToken,
    });
    return state.structuredContent.save_url;
  }

  async function signIn(page: Page, provider: string, login: string) {
    await page.getByRole('link', { name: `Continue with ${provider}` }).click();
    await page.getByLabel('Name').fill(login);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  const ownerOf = async (runId: string) =>
    (await stack.orm.em.getConnection().execute('select account_id from scans where id = ?', [runId]))[0]
      ?.account_id as string | null;

  const accountOf = async (provider: RunningUpstream, subject: string) =>
    (
      await stack.orm.em
        .getConnection()
        .execute('select account_id from account_identities where provider = ? and subject = ?', [
          provider.provider.issuer,
          subject,
        ])
    )[0]?.account_id as string | undefined;

  it('the consenting browser signs in, sees what will be saved in words, chooses to save; the scan is then the account’s', async () => {
    const scan = await consentedScan(stack);
    const url = await saveUrl(scan);
    assert.equal(url, `${base}/save/${scan.runId}`);
    const { page } = await openBrowser(scan.browserSecret);
    const res = await page.goto(url);
    assert.equal(res?.status(), 200);
    assertPageHeaders(res!.headers());
    assert.equal(await page.title(), 'Save your skin scan');
    assert.ok((await page.locator('#scores li').allTextContents()).includes('Redness: 30 out of 100'));
    assert.deepEqual(await page.locator('#concerns li').allTextContents(), [
      'Redness',
      'Blemishes',
      'Dark spots',
    ]);
    assert.deepEqual(await page.getByRole('link').allTextContents(), [
      'Continue with Alpha',
      'Continue with Beta',
    ]);

    await signIn(page, 'Beta', 'sam');
    await page.getByRole('button', { name: 'Save to my account' }).waitFor();
    assert.equal(page.url(), url);
    assert.match(
      (await page.textContent('#step')) ?? '',
      /^Signed in with Beta\. Nothing is saved until you choose to\./,
    );
    assert.equal(await ownerOf(scan.runId), null, 'signing in saves nothing');

    await page.getByRole('button', { name: 'Save to my account' }).click();
    await page.waitForURL(url);
    assert.equal(await page.title(), 'Your scan is saved');
    assert.equal(
      await page.textContent('#step'),
      'This scan is saved to the account you signed in to with Beta.',
    );
    const account = await accountOf(stack.upstreams[1]!, 'sam');
    assert.ok(account);
    assert.equal(await ownerOf(scan.runId), account);

    const listed = await accountRpc(base, `Bearer ${await mintToken(stack, account)}`, 'tools/call', {
      name: 'list_my_scans',
      arguments: {},
    });
    assert.deepEqual(
      listed.body.result.structuredContent.scans.map((s: { run_id: string }) => s.run_id),
      [scan.runId],
    );

    // Reloading (or posting again) changes nothing.
    await page.reload();
    assert.equal(await page.title(), 'Your scan is saved');
    assert.equal(await ownerOf(scan.runId), account);
  });

  it('saving while the account is being deleted sends the person back to sign in, as a moment later; nothing is saved', async () => {
    const scan = await consentedScan(stack);
    const url = await saveUrl(scan);
    const { context, page } = await openBrowser(scan.browserSecret);
    await page.goto(url);
    await signIn(page, 'Alpha', 'leaving');
    await page.getByRole('button', { name: 'Save to my account' }).waitFor();
    // delete_my_service_data elsewhere holds the account row until it commits: the save finds the account,
    // then waits at the scan's new key to it.
    const deleter = new pg.Client({ connectionString: stack.databaseUrl });
    await deleter.connect();
    try {
      await deleter.query('begin');
      await deleter.query('delete from accounts where id = $1', [
        await accountOf(stack.upstreams[0]!, 'leaving'),
      ]);
      const saving = context.request.post(url, {
        headers: { origin: base },
        form: { decision: 'save' },
        maxRedirects: 0,
      });
      await untilWaitingOnLock(stack.orm, 'scans');
      await deleter.query('commit');
      const saved = await saving;
      assert.equal(saved.status(), 302);
      assert.equal(saved.headers().location, `/save/${scan.runId}`);
    } finally {
      await deleter.end();
    }
    const res = await page.goto(url);
    assert.equal(res?.status(), 200);
    assert.equal(await page.title(), 'Save your skin scan');
    assert.deepEqual(await page.getByRole('link').allTextContents(), [
      'Continue with Alpha',
      'Continue with Beta',
    ]);
    assert.equal(await ownerOf(scan.runId), null);
  });

  it('a browser that did not consent gets a 403 page showing nothing of the scan, and cannot sign in to save it', async () => {
    const scan = await consentedScan(stack);
    const url = await saveUrl(scan);
    const otherScan = await consentedScan(stack);
    for (const secret of [undefined, 'f'.repeat(64), otherScan.browserSecret]) {
      const { page } = await openBrowser(secret);
      const res = await page.goto(url);
      assert.equal(res?.status(), 403);
      assertPageHeaders(res!.headers());
      assert.equal(await page.title(), 'Open this link where you agreed');
      assert.equal(
        await page.textContent('#refusal'),
        'This link works only in the browser where you agreed to the scan on its upload page. ' +
          'Open it there to save the scan to your account.',
      );
      const text = (await page.textContent('body')) ?? '';
      assert.doesNotMatch(text, /Redness|out of 100|Continue with/);
      const signIn = await page.goto(`${url}/sign-in/1`);
      assert.equal(signIn?.status(), 403);
      assert.equal(new URL(page.url()).origin, base, 'not sent to the provider');
    }
    assert.equal(await ownerOf(scan.runId), null);
  });

  it('unknown, deleted and expired scans, and ids that are not one, get one identical 404 page', async () => {
    const deleted = await consentedScan(stack);
    const deletedUrl = await saveUrl(deleted);
    await callTool(base, 'delete_skin_scan', { run_id: deleted.runId, access_token: deleted.accessToken });
    const expired = await consentedScan(stack);
    const expiredUrl = await saveUrl(expired);
    const bodies: string[] = [];
    const get = async (url: string, secret: string) => {
      const res = await fetch(url, { headers: { cookie: `__Host-skinmatch-browser=${secret}` } });
      assert.equal(res.status, 404, url);
      // The same bytes but for the nonce of the page's style, fresh for every response.
      bodies.push((await res.text()).replace(/nonce="[^"]+"/, ''));
    };
    await get(`${base}/save/${crypto.randomUUID()}`, deleted.browserSecret);
    await get(`${base}/save/not-a-scan`, deleted.browserSecret);
    await get(deletedUrl, deleted.browserSecret);
    stack.clock.offsetMs = 8 * 24 * 3600 * 1000;
    try {
      await get(expiredUrl, expired.browserSecret);
    } finally {
      stack.clock.offsetMs = 0;
    }
    assert.equal(new Set(bodies).size, 1);
    assert.match(bodies[0]!, /This link does not work/);
  });

  it('takes the id in any case, as the tools take run_id; after sign-in the page is at its one spelling', async () => {
    const scan = await consentedScan(stack);
    const url = await saveUrl(scan);
    const { page } = await openBrowser(scan.browserSecret);
    const res = await page.goto(`${base}/save/${scan.runId.toUpperCase()}`);
    assert.equal(res?.status(), 200);
    assert.equal(await page.title(), 'Save your skin scan');
    await signIn(page, 'Alpha', 'casey');
    await page.getByRole('button', { name: 'Save to my account' }).click();
    await page.waitForURL(url);
    assert.equal(await page.title(), 'Your scan is saved');
    assert.equal(await ownerOf(scan.runId), await accountOf(stack.upstreams[0]!, 'casey'));
  });

  it('saving is a POST from the page itself: another Origin, or none, is refused', async () => {
    const scan = await consentedScan(stack);
    const url = await saveUrl(scan);
    const attempts: Record<string, string>[] = [
      { origin: 'https://elsewhere.example' },
      { origin: 'https://elsewhere.example', 'sec-fetch-site': 'same-origin' },
      { origin: 'null' },
      { origin: 'null', 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-origin' },
      {},
    ];
    for (const headers of attempts) {
      const res = await fetch(url, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          cookie: `__Host-skinmatch-browser=${scan.browserSecret}`,
          ...headers,
        },
        body: 'decision=save',
      });
      assert.equal(res.status, 403, JSON.stringify(headers));
      assert.match(await res.text(), /This request was refused/);
    }
    assert.equal(await ownerOf(scan.runId), null);
  });

  it('a scan saved to one account cannot be saved to another, even from the consenting browser', async () => {
    const scan = await consentedScan(stack);
    const url = await saveUrl(scan);
    const first = await openBrowser(scan.browserSecret);
    await first.page.goto(url);
    await signIn(first.page, 'Alpha', 'una');
    await first.page.getByRole('button', { name: 'Save to my account' }).click();
    await first.page.waitForURL(url);
    assert.equal(await first.page.title(), 'Your scan is saved');

    // The same person later, in a fresh session of that browser: saved, no sign-in offered.
    const second = await openBrowser(scan.browserSecret);
    await second.page.goto(url);
    assert.equal(await second.page.textContent('#step'), 'This scan is already saved to an account.');
    assert.equal(await second.page.getByRole('link', { name: /Continue with/ }).count(), 0);
    // Signed in to another account (by the sign-in address itself): no save offered, and a POST is refused.
    await second.page.goto(`${url}/sign-in/2`);
    await second.page.getByLabel('Name').fill('vera');
    await second.page.getByRole('button', { name: 'Sign in' }).click();
    await second.page.waitForURL(url);
    assert.equal(
      await second.page.textContent('#step'),
      'This scan is already saved to another account; it cannot be saved again.',
    );
    assert.equal(await second.page.getByRole('button', { name: 'Save to my account' }).count(), 0);
    const forced = await second.context.request.post(url, {
      headers: { origin: base },
      form: { decision: 'save' },
      maxRedirects: 0,
    });
    assert.equal(forced.status(), 409);
    assert.match(await forced.text(), /already saved to another account/);
    assert.equal(await ownerOf(scan.runId), await accountOf(stack.upstreams[0]!, 'una'));
  });

  it('an anonymous upstream identity is refused on the save page too, and saves nothing', async () => {
    const scan = await consentedScan(stack);
    const { page } = await openBrowser(scan.browserSecret);
    await page.goto(await saveUrl(scan));
    const response = page.waitForResponse((r) => r.url().includes('/oauth/callback/1'));
    await signIn(page, 'Alpha', 'anonymous');
    assert.equal((await response).status(), 403);
    assert.match((await page.textContent('#description')) ?? '', /^Alpha signed you in anonymously/);
    assert.equal(await ownerOf(scan.runId), null);
  });
});
