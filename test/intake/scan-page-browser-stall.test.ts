// A photo that stops on its way: the phone's network froze mid-upload, so the request neither moves nor
// fails. Stood in for by a route that takes the photo's request and never answers it. The page gives up
// after STALL_MS without progress (the page's clock is Playwright's, moved forward by the test: the bound is
// the page's own, not a switch anyone could flip), says so and lets the person try again; while the photo
// is sending, the person can stop it, or delete the scan (the send is stopped first).
import assert from 'node:assert/strict';
import type { Page, Route } from 'playwright-core';
import { PAGE_WORDS } from '../../facade/pages/scan-html.ts';
import { callTool } from '../support/mcp.ts';
import { assertAccessible, consentOnPage, phoneSuite, shown, sleep } from './scan-page-browser-support.ts';
import { type AgentScan, startScan } from './scan-page-support.ts';

/** scan-upload.js's STALL_MS. */
const STALL_MS = 25_000;

describe('the upload page when sending the photo stalls', function () {
  this.timeout(120_000);
  const phone = phoneSuite('scan-page-browser-stall');

  /** A consented page on a phone whose next photo request is held, never answered; `held` once it is. */
  async function stalledPage(scan: AgentScan): Promise<{ page: Page; held: Promise<Route> }> {
    const context = await phone.newContext();
    const page = await context.newPage();
    page.on('dialog', (dialog) => dialog.accept());
    await page.clock.install();
    await page.goto(`${phone.stack.baseUrl}/scan/${scan.run_id}`);
    await consentOnPage(page);
    const held = new Promise<Route>((take) => void page.route('**/photo', take, { times: 1 }));
    return { page, held };
  }

  const controlsEnabled = async (page: Page) =>
    Promise.all(['#selfie', '#file', '#delete-button'].map((c) => page.isEnabled(c)));
  const agentStatus = async (scan: AgentScan) =>
    (await callTool(phone.stack.baseUrl, 'get_skin_scan', scan)).structuredContent;

  it('no progress for the bound: given up, the network words, the controls back; the next try goes through', async () => {
    const scan = await startScan(phone.stack.baseUrl);
    const { page, held } = await stalledPage(scan);
    await page.setInputFiles('#file', phone.face);
    await held;
    assert.equal(await page.textContent('#status'), PAGE_WORDS.uploading);
    assert.equal(await page.isVisible('#upload'), true);
    await sleep(500);
    // Just short of the bound, nothing has changed.
    await page.clock.fastForward(STALL_MS - 2_000);
    await sleep(200);
    assert.equal(await page.textContent('#alert'), '');
    assert.equal(await page.isDisabled('#file'), true);
    await page.clock.fastForward(3_000);
    await page.locator('#alert', { hasText: PAGE_WORDS.network }).waitFor({ timeout: 5_000 });
    assert.equal(await page.textContent('#status'), PAGE_WORDS.awaitingPhoto);
    assert.equal(await page.isVisible('#upload'), false);
    assert.deepEqual(await controlsEnabled(page), [true, true, true]);
    await assertAccessible(page, 'a stalled upload given up');

    await page.setInputFiles('#file', phone.face);
    await shown(page, 'progress', 30_000);
    assert.equal((await agentStatus(scan)).status, 'queued');
  });

  it('"Stop sending" stops the photo on its way; nothing is taken and the person can choose again', async () => {
    const scan = await startScan(phone.stack.baseUrl);
    const { page, held } = await stalledPage(scan);
    assert.equal(await page.isVisible('#upload-cancel'), false);
    await page.setInputFiles('#file', phone.face);
    await held;
    const failed = page.waitForEvent('requestfailed', (r) => r.url().endsWith('/photo'));
    await page.tap('#upload-cancel');
    await failed;
    await page.locator('#alert', { hasText: PAGE_WORDS.uploadCancelled }).waitFor({ timeout: 5_000 });
    assert.equal(await page.textContent('#status'), PAGE_WORDS.awaitingPhoto);
    assert.equal(await page.isVisible('#upload'), false);
    assert.deepEqual(await controlsEnabled(page), [true, true, true]);
    assert.equal((await agentStatus(scan)).status, 'awaiting_upload');
  });

  it('"Delete this scan" while the photo is sending: the send is stopped and the scan deleted', async () => {
    const scan = await startScan(phone.stack.baseUrl);
    const { page, held } = await stalledPage(scan);
    await page.setInputFiles('#file', phone.face);
    await held;
    const deleted = page.waitForResponse((r) => r.url().endsWith('/delete'));
    await page.tap('#delete-button'); // the confirm dialog is accepted
    assert.equal((await deleted).status(), 200);
    await shown(page, 'gone', 5_000);
    assert.equal(await page.textContent('#gone-message'), PAGE_WORDS.deleted);
    assert.equal(await page.textContent('#alert'), '');
    assert.equal((await agentStatus(scan)).error?.code, 'not_found');
  });
});
