// The upload page for a person who asked their system for less motion (prefers-reduced-motion: reduce):
// nothing on it moves, the bot check's spinner included, while for everyone else that spinner turns.
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { phoneSuite } from './scan-page-browser-support.ts';
import { startScan } from './scan-page-support.ts';

describe('the upload page and reduced motion', function () {
  this.timeout(120_000);
  const phone = phoneSuite('scan-page-motion');

  /** The running animations while the bot check works (its challenge held back until they are read). */
  async function animationsWhileChecking(page: Page): Promise<string[]> {
    const scan = await startScan(phone.stack.baseUrl);
    let release = () => {};
    const held = new Promise<void>((done) => (release = done));
    await page.route('**/challenge', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${phone.stack.baseUrl}/scan/${scan.run_id}`);
    await page.waitForSelector('#consent-submit:enabled');
    await page.tap('#consent-check');
    await page.tap('#consent-submit');
    await page.waitForSelector('altcha-widget .altcha-spinner');
    const running = (await page.evaluate(
      `document.getAnimations().filter((a) => a.playState === 'running').map((a) => a.animationName ?? a.transitionProperty)`,
    )) as string[];
    release();
    await page.waitForSelector('#photo-step:not([hidden])', { timeout: 30_000 });
    return running;
  }

  it('with reduced motion nothing moves while the bot check works; without, its spinner turns', async () => {
    const still = await (await phone.newContext({ reducedMotion: 'reduce' })).newPage();
    assert.deepEqual(await animationsWhileChecking(still), []);
    const moving = await (await phone.newContext({ reducedMotion: 'no-preference' })).newPage();
    assert.deepEqual(await animationsWhileChecking(moving), ['altcha-rotate']);
  });
});
