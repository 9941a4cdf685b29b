/**
 * Every cookie the façade sets in a browser — the upload page's, the sign-in's at /authorize (oidc-provider's
 * session and interaction cookies, the upstream attempt, the signed-in account) and the save page's — is named
 * with a prefix the browser enforces: `__Host-` for a cookie of the whole site (Secure, Path=/, no Domain: no
 * other host of the domain can set or shadow it, so nobody can plant their own sign-in session in the
 * person's browser), `__Secure-` for one scoped to a path; each Secure, HttpOnly, with a SameSite. And the
 * browser keeps them: the sign-in and the save still work.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { browserSuite } from '../support/browser.ts';
import { consentedScan, holdConsentCookie } from '../support/consent.ts';
import { callTool } from '../support/mcp.ts';
import { interceptRedirect } from '../support/oauth-client.ts';
import { authorizeUrl, pkce, register } from '../support/oauth-http.ts';
import { type SignInStack, startSignInStack } from '../support/sign-in-stack.ts';

describe('the names and attributes of every cookie a browser gets', function () {
  this.timeout(60_000);
  let stack: SignInStack;
  const browser = browserSuite();

  before(async () => {
    stack = await startSignInStack('cookie-names', ['Alpha']);
  });
  after(async () => {
    await stack?.close();
  });

  /** Every Set-Cookie line the façade answers the page with. */
  function setCookies(page: Page): string[] {
    const lines: string[] = [];
    page.on('response', async (response) => {
      if (!response.url().startsWith(stack.baseUrl)) return;
      for (const { name, value } of await response.headersArray()) {
        if (name.toLowerCase() === 'set-cookie') lines.push(value);
      }
    });
    return lines;
  }

  function assertPrefixed(lines: string[]) {
    assert.ok(lines.length > 0);
    for (const line of lines) {
      const name = line.split('=')[0]!;
      const path = /;\s*path=([^;]*)/i.exec(line)?.[1];
      assert.match(name, path === '/' ? /^__Host-/ : /^__Secure-/, line);
      assert.match(line, /;\s*secure\s*(;|$)/i, line);
      assert.match(line, /;\s*httponly\s*(;|$)/i, line);
      assert.match(line, /;\s*samesite=(lax|strict)\s*(;|$)/i, line);
      assert.doesNotMatch(line, /;\s*domain=/i, line);
    }
  }

  it('signing in at /authorize and allowing', async () => {
    const page = await browser.newPage();
    const lines = setCookies(page);
    const client = (await register(stack.baseUrl)).body;
    const url = authorizeUrl(stack.baseUrl, {
      client_id: client.client_id,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
    });
    const back = interceptRedirect(page);
    await page.goto(url.href);
    await page.getByRole('link', { name: 'Continue with Alpha' }).click();
    await page.getByLabel('Name').fill('prefixed');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    assert.match((await back).searchParams.get('code') ?? '', /^[\w-]{20,}$/);
    assertPrefixed(lines);
    // The browser kept the session: a second authorization needs no second sign-in (straight back to the
    // client, overtaking the navigation, or the consent page again; a lost session would ask for a provider).
    const again = interceptRedirect(page);
    await page.goto(url.href).catch(() => undefined);
    const allowed = page
      .getByRole('button', { name: 'Allow' })
      .click()
      .then(
        () => again,
        () => again,
      );
    assert.match((await Promise.race([again, allowed])).searchParams.get('code') ?? '', /^[\w-]{20,}$/);
  });

  it('consenting on the upload page, then saving on the save page', async () => {
    const started = (await callTool(stack.baseUrl, 'start_skin_scan', { source: 'cookies' }))
      .structuredContent;
    const upload = await browser.newPage();
    const uploadLines = setCookies(upload);
    await upload.goto(started.upload_url);
    await upload.check('#consent-check');
    await upload.click('#consent-submit');
    await upload.waitForSelector('#photo-step:not([hidden])', { timeout: 30_000 });
    assertPrefixed(uploadLines);

    const scan = await consentedScan(stack);
    const { save_url } = (
      await callTool(stack.baseUrl, 'get_skin_scan', { run_id: scan.runId, access_token: scan.accessToken })
    ).structuredContent;
    const context = await browser.newContext();
    await holdConsentCookie(context, stack.baseUrl, scan.browserSecret);
    const page = await context.newPage();
    const lines = setCookies(page);
    await page.goto(save_url);
    await page.getByRole('link', { name: 'Continue with Alpha' }).click();
    await page.getByLabel('Name').fill('prefixed-saver');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Save to my account' }).click();
    await page.getByRole('heading', { name: 'Your scan is saved' }).waitFor();
    assertPrefixed(lines);
  });
});
