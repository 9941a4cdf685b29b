// The upload page by keyboard: every control the person tabs to on the consent and photo steps shows a focus
// ring wide enough and at 3:1 against the page at least (WCAG 1.4.11), the photo pickers' on their buttons.
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { assertFocusRing } from '../support/focus-ring.ts';
import { consentByKeyboard, phoneSuite } from './scan-page-browser-support.ts';
import { startScan } from './scan-page-support.ts';

describe('the upload page’s focus ring', function () {
  this.timeout(120_000);
  const phone = phoneSuite('scan-page-focus');

  /** Tabs through the page once, checking each control's ring; answers the ids reached, in order. */
  async function tabThrough(page: Page): Promise<string[]> {
    const reached: string[] = [];
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      const id = (await page.evaluate('document.activeElement.id')) as string;
      if (id === '' || reached.includes(id)) break;
      reached.push(id);
      await assertFocusRing(page);
    }
    return reached;
  }

  it('on the consent step and on the photo step', async () => {
    const scan = await startScan(phone.stack.baseUrl);
    const page = await (await phone.newContext({ hasTouch: false, isMobile: false })).newPage();
    await page.goto(`${phone.stack.baseUrl}/scan/${scan.run_id}`);
    await page.waitForSelector('#consent-submit:enabled');
    assert.deepEqual(await tabThrough(page), [
      'consent-check',
      'altcha-checkbox-challenge',
      'consent-submit',
    ]);
    await page.reload();
    await page.waitForSelector('#consent-submit:enabled');
    await consentByKeyboard(page);
    assert.deepEqual(await tabThrough(page), ['selfie', 'file', 'delete-button']);
  });
});
