/**
 * What a browser lets our pages do, asked of Chromium itself: the upload page may use the camera (it takes
 * the selfie) and nothing else powerful; other pages not even the camera; Chromium knows every feature named
 * (an unknown one is a console error). A page opened from another site's window is cut off from it (COOP),
 * except along the authorization flow, where a web client's popup must keep its opener.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { startScan } from '../intake/scan-page-support.ts';
import { browserSuite } from '../support/browser.ts';
import { type Stack, startStack } from '../support/stack.ts';

/** The features the page's document is allowed, of those we name, and the console's policy complaints. */
async function allowed(page: Page): Promise<string[]> {
  return (await page.evaluate(
    "document.featurePolicy.allowedFeatures().filter((f) => ['camera', 'microphone', 'geolocation', 'usb', 'payment'].includes(f)).sort()",
  )) as string[];
}

/**
 * Whether a window opened from a page of another origin keeps its opener. The opener is localhost, not
 * 127.0.0.1, on a path of the authorization flow: a page with no opener policy of its own, as a client's.
 */
async function keepsOpener(page: Page, url: string): Promise<boolean> {
  await page.goto(`${new URL(url).origin.replace('127.0.0.1', 'localhost')}/interaction/x/y`);
  const [popup] = await Promise.all([
    page.waitForEvent('popup'),
    page.evaluate(`void window.open(${JSON.stringify(url)})`),
  ]);
  await popup.waitForLoadState();
  assert.equal(popup.url(), url);
  return (await popup.evaluate('window.opener !== null')) as boolean;
}

describe('what our pages may do in a browser', function () {
  this.timeout(120_000);
  const browser = browserSuite();
  let stack: Stack;

  before(async () => {
    stack = await startStack('page-powers');
  });
  after(() => stack?.close());

  it('the upload page: the camera, nothing else; another page: not the camera either', async () => {
    const page = await browser.newPage();
    const complaints: string[] = [];
    page.on('console', (m) => {
      if (/permissions.policy|feature/i.test(m.text())) complaints.push(m.text());
    });
    const scan = await startScan(stack.baseUrl);
    await page.goto(`${stack.baseUrl}/scan/${scan.run_id}`);
    assert.deepEqual(await allowed(page), ['camera']);
    await page.goto(`${stack.baseUrl}/nope`);
    assert.deepEqual(await allowed(page), []);
    assert.deepEqual(complaints, []);
  });

  it('the upload page loses its opener from another site; the authorization page keeps it', async () => {
    const scan = await startScan(stack.baseUrl);
    assert.equal(await keepsOpener(await browser.newPage(), `${stack.baseUrl}/scan/${scan.run_id}`), false);
    assert.equal(await keepsOpener(await browser.newPage(), `${stack.baseUrl}/authorize?client_id=x`), true);
  });
});
