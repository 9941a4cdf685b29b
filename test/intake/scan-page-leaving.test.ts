// Leaving the upload page while the photo is on its way (the back button, a reload, closing the tab) would
// drop the send without a word: the browser asks first, as it does for a form being filled in. Once the photo
// has arrived, or when none is being sent, the page is left without a question.
import assert from 'node:assert/strict';
import type { Page, Route } from 'playwright-core';
import { consentOnPage, phoneSuite, shown } from './scan-page-browser-support.ts';
import { startScan } from './scan-page-support.ts';

describe('leaving the upload page while the photo is sent', function () {
  this.timeout(120_000);
  const phone = phoneSuite('scan-page-leaving');

  /** A consented page that records the dialogs it shows (and accepts them, so that the page is left). */
  async function consentedPage(): Promise<{ page: Page; dialogs: string[] }> {
    const page = await (await phone.newContext()).newPage();
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.type());
      void dialog.accept();
    });
    await page.goto(`${phone.stack.baseUrl}/scan/${(await startScan(phone.stack.baseUrl)).run_id}`);
    await consentOnPage(page);
    return { page, dialogs };
  }

  /** The person taps "Choose a photo" and picks the face (a tap: the browser asks only after one). */
  async function choosePhoto(page: Page) {
    const chooser = page.waitForEvent('filechooser');
    await page.tap('label[for="file"]');
    await (await chooser).setFiles(phone.face);
  }

  it('a reload while the photo is sent asks first; the scan still takes a photo after it', async () => {
    const { page, dialogs } = await consentedPage();
    const held = new Promise<Route>((take) => void page.route('**/photo', take, { times: 1 }));
    await choosePhoto(page);
    const route = await held;
    await page.reload();
    assert.deepEqual(dialogs, ['beforeunload']);
    await route.abort().catch(() => {}); // the request the reload dropped
    await shown(page, 'photo', 30_000);
    await choosePhoto(page);
    await shown(page, 'progress', 30_000);
  });

  it('once the photo has arrived, or with none being sent, the page is left without a question', async () => {
    const { page, dialogs } = await consentedPage();
    await page.tap('#photo-title'); // a tap on the page, so that the browser would ask if the page wanted
    await page.reload();
    await choosePhoto(page);
    await shown(page, 'progress', 30_000);
    await page.reload();
    await shown(page, 'progress', 30_000);
    await page.goBack();
    assert.deepEqual(dialogs, []);
  });
});
