/**
 * The sign-in, consent, save and error pages as people meet them: on a 320 px wide screen (a small phone,
 * or a desktop at 400 % zoom) no page scrolls sideways, axe-core finds nothing on any of them, and the
 * whole sign-in is done with the keyboard alone, each control's focus visible; an error page says first, in
 * words, what it means for the person.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { ERROR_ADVICE } from '../../facade/oauth/pages.ts';
import { assertAccessible } from '../intake/scan-page-browser-support.ts';
import { browserSuite } from '../support/browser.ts';
import { consentedScan, holdConsentCookie } from '../support/consent.ts';
import { assertFocusRing } from '../support/focus-ring.ts';
import { callTool } from '../support/mcp.ts';
import { interceptRedirect } from '../support/oauth-client.ts';
import { authorizeUrl, pkce, register } from '../support/oauth-http.ts';
import { type SignInStack, startSignInStack } from '../support/sign-in-stack.ts';

const NARROW = { viewport: { width: 320, height: 640 } };

describe('sign-in, consent, save and error pages on a narrow screen and by keyboard', function () {
  this.timeout(120_000);
  let stack: SignInStack;
  const browser = browserSuite();

  before(async () => {
    stack = await startSignInStack('sign-in-pages-a11y', ['Alpha', 'Beta']);
  });
  after(async () => {
    await stack?.close();
  });

  /** No sideways scrolling, and nothing for axe-core. */
  async function assertFits(page: Page, label: string) {
    const wider = await page.evaluate(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    );
    assert.equal(wider, 0, `${label}: ${wider} px wider than the screen`);
    await assertAccessible(page, label);
  }

  /** Tabs until the focused element's text is `name`; its focus ring must show (support/focus-ring.ts). */
  async function tabTo(page: Page, name: string) {
    for (let i = 0; i < 20; i++) {
      await page.keyboard.press('Tab');
      const text = await page.evaluate('document.activeElement.textContent.trim()');
      if (text === name) return assertFocusRing(page);
    }
    throw new Error(`Tab never reached ${name}`);
  }

  const authorizeRequest = async (redirect?: string) => {
    const client = (await register(stack.baseUrl, { client_name: 'Helpful Agent' })).body;
    return authorizeUrl(stack.baseUrl, {
      client_id: client.client_id,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
      ...(redirect ? { redirect_uri: redirect } : {}),
    });
  };

  it('/authorize: choosing a provider and allowing, by keyboard alone', async () => {
    const page = await browser.newPage(NARROW);
    const back = interceptRedirect(page);
    await page.goto((await authorizeRequest()).href);
    await assertFits(page, 'the provider choice');
    await tabTo(page, 'Continue with Alpha');
    await page.keyboard.press('Enter');
    await page.getByLabel('Name').fill('kim');
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    await assertFits(page, 'the consent page');
    await tabTo(page, 'Allow');
    await page.keyboard.press('Enter');
    assert.ok((await back).searchParams.get('code'));
  });

  it('/authorize: the 400 pages of a redirect URI not registered and of an unknown client', async () => {
    const page = await browser.newPage(NARROW);
    const bad = await page.goto((await authorizeRequest('http://127.0.0.1:9/elsewhere')).href);
    assert.equal(bad?.status(), 400);
    // In words first, for the person who followed the app's link; OAuth's terms after, for its makers.
    assert.equal(await page.textContent('#advice'), ERROR_ADVICE.refused);
    assert.equal(await page.textContent('h2'), 'Details for the app’s makers');
    assert.equal(await page.textContent('#error'), 'invalid_redirect_uri');
    await assertFits(page, 'a redirect URI not registered');
    const url = await authorizeRequest();
    url.searchParams.set('client_id', 'no-such-client');
    const unknown = await page.goto(url.href);
    assert.equal(unknown?.status(), 400);
    assert.equal(await page.textContent('#advice'), ERROR_ADVICE.refused);
    assert.equal(await page.textContent('#error'), 'invalid_client');
    await assertFits(page, 'an unknown client');
  });

  it('the save page: signing in and saving by keyboard alone; its refusal and 404 pages', async () => {
    const scan = await consentedScan(stack);
    const { save_url } = (
      await callTool(stack.baseUrl, 'get_skin_scan', { run_id: scan.runId, access_token: scan.accessToken })
    ).structuredContent;
    const stranger = await browser.newPage(NARROW);
    assert.equal((await stranger.goto(save_url))?.status(), 403);
    await assertFits(stranger, 'the save page in another browser');
    assert.equal((await stranger.goto(`${stack.baseUrl}/save/${crypto.randomUUID()}`))?.status(), 404);
    await assertFits(stranger, 'the save page of no scan');

    const context = await browser.newContext(NARROW);
    await holdConsentCookie(context, stack.baseUrl, scan.browserSecret);
    const page = await context.newPage();
    assert.equal((await page.goto(save_url))?.status(), 200);
    await assertFits(page, 'the save page before sign-in');
    await tabTo(page, 'Continue with Beta');
    await page.keyboard.press('Enter');
    await page.getByLabel('Name').fill('lee');
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Save to my account' }).waitFor();
    await assertFits(page, 'the save page signed in');
    await tabTo(page, 'Save to my account');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Your scan is saved' }).waitFor();
    await assertFits(page, 'the save page saved');
  });
});
