// The upload page's own files on a phone. When its script never starts (one of its files failed to load on a
// flaky mobile network, a blocker refused it), every control stays grey, as it was sent: the person is told,
// after a while, what to do; a page whose script started, or a browser with JavaScript off, never shows that
// notice. And every file the page runs comes under one deploy's version, so none is another deploy's.
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { ASSET_VERSION } from '../../facade/pages/scan-assets.ts';
import { PAGE_WORDS } from '../../facade/pages/scan-html.ts';
import { assertAccessible, consentOnPage, phoneSuite, sleep } from './scan-page-browser-support.ts';
import { startScan } from './scan-page-support.ts';

/** The notice's delay (10 s in scan-page.css) passes 50 times faster: the page's animations run at ×50. */
async function hurryAnimations(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Animation.enable');
  await cdp.send('Animation.setPlaybackRate', { playbackRate: 50 });
}

describe("the upload page's own files", function () {
  this.timeout(120_000);
  const phone = phoneSuite('scan-page-browser-load');
  const uploadUrl = (runId: string) => `${phone.stack.baseUrl}/scan/${runId}`;

  for (const file of ['scan-page.js', 'scan-upload.js']) {
    it(`${file} failing to load: the grey page says to reload, and reloaded it works`, async () => {
      const scan = await startScan(phone.stack.baseUrl);
      const page = await phone.newPage();
      await hurryAnimations(page);
      await page.route(`**/scan/assets/*/${file}`, (route) => route.abort('connectionreset'));
      await page.goto(uploadUrl(scan.run_id));
      await page.locator('#not-loaded').waitFor({ state: 'visible', timeout: 10_000 });
      assert.equal(await page.textContent('#not-loaded'), PAGE_WORDS.notLoaded);
      assert.equal(await page.isDisabled('#consent-submit'), true);
      await assertAccessible(page, 'a page whose script failed to load');

      await page.unroute(`**/scan/assets/*/${file}`);
      await page.reload();
      await consentOnPage(page);
      assert.equal(await page.locator('#not-loaded').count(), 0);
    });
  }

  it('a page whose script started never shows it; nor does one with JavaScript off (it has its <noscript>)', async () => {
    const scan = await startScan(phone.stack.baseUrl);
    const page = await phone.newPage();
    await hurryAnimations(page);
    await page.goto(uploadUrl(scan.run_id));
    await page.waitForSelector('#consent-submit:enabled');
    assert.equal(await page.locator('#not-loaded').count(), 0);

    const off = await (await phone.newContext({ javaScriptEnabled: false })).newPage();
    await hurryAnimations(off);
    await off.goto(uploadUrl(scan.run_id));
    await sleep(1000); // 50 s of the page's animation time, well past the notice's 10 s
    assert.equal(await off.locator('#not-loaded').isVisible(), false);
    assert.match((await off.textContent('noscript')) ?? '', /needs JavaScript/);
  });

  it('every file of the page (its modules, the widget, its worker) comes under this deploy’s version', async () => {
    const scan = await startScan(phone.stack.baseUrl);
    const page = await phone.newPage();
    const files: string[] = [];
    page.on('request', (r) => {
      const path = new URL(r.url()).pathname;
      if (path.startsWith('/scan/assets/')) files.push(path);
    });
    await page.goto(uploadUrl(scan.run_id));
    await consentOnPage(page); // the widget's worker solves the bot check
    await page.setInputFiles('#file', phone.face); // the photo is made smaller (scan-upload.js and its import)
    await page.waitForSelector('#progress-step:not([hidden])');
    const names = files.map((path) => path.replace(`/scan/assets/${ASSET_VERSION}/`, ''));
    assert.deepEqual([...new Set(names)].sort(), [
      'altcha-pbkdf2-worker.js',
      'altcha.css',
      'altcha.js',
      'photo-orientation.js',
      'scan-page.css',
      'scan-page.js',
      'scan-steps.js',
      'scan-upload.js',
    ]);
  });
});
