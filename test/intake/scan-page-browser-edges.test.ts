// The upload page as people really meet it, on a phone (390×844, touch, 3× pixels) in headless Chromium: a
// tap before the page's script has arrived, a file the browser cannot read, the bot check failing, the scan
// deleted before consent or while the progress stream was down, a browser that keeps no cookies, one browser
// with two scans. Each time the person reads what is true and has a next step; nothing is posted that they
// did not mean to post.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page, Request, Route } from 'playwright-core';
import sharp from 'sharp';
import { PAGE_WORDS } from '../../facade/pages/scan-html.ts';
import { REFUSALS } from '../../facade/pages/scan-words.ts';
import { callTool } from '../support/mcp.ts';
import { assertAccessible, consentOnPage, phoneSuite, shown, sleep } from './scan-page-browser-support.ts';
import { startScan } from './scan-page-support.ts';

const HOP_BY_HOP = new Set(['host', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);
const CONTROLS = ['#consent-submit', '#selfie', '#file', '#delete-button'];

describe('the upload page on a phone, when things go wrong', function () {
  this.timeout(120_000);
  const phone = phoneSuite('scan-page-browser-edges');

  const newPage = phone.newPage;

  const uploadUrl = (runId: string) => `${phone.stack.baseUrl}/scan/${runId}`;
  const posts = (page: Page) => {
    const seen: string[] = [];
    page.on('request', (r: Request) => {
      if (r.method() === 'POST') seen.push(new URL(r.url()).pathname.split('/').at(-1)!);
    });
    return seen;
  };

  it('a tap before the script has arrived posts nothing; every control works once it has', async () => {
    const scan = await startScan(phone.stack.baseUrl);
    const page = await newPage();
    const sent = posts(page);
    let release = () => {};
    const held = new Promise<void>((done) => (release = done));
    await page.route('**/scan/assets/*/scan-page.js', async (route) => {
      await held;
      await route.continue();
    });

    await page.goto(uploadUrl(scan.run_id), { waitUntil: 'commit' });
    await page.waitForSelector('#consent-submit');
    for (const control of CONTROLS) assert.equal(await page.isDisabled(control), true, control);
    await page.tap('#consent-check');
    await page.tap('#consent-submit', { force: true, noWaitAfter: true });
    await sleep(500);
    assert.deepEqual(sent, []);
    assert.equal(page.url(), uploadUrl(scan.run_id));

    release();
    await page.waitForSelector('#consent-submit:enabled');
    await consentOnPage(page);
    for (const control of CONTROLS) assert.equal(await page.isDisabled(control), false, control);

    // Reloaded with the script held again: the delete button cannot delete without its confirmation.
    let releaseAgain = () => {};
    const heldAgain = new Promise<void>((done) => (releaseAgain = done));
    await page.unroute('**/scan/assets/*/scan-page.js');
    await page.route('**/scan/assets/*/scan-page.js', async (route) => {
      await heldAgain;
      await route.continue();
    });
    await page.reload({ waitUntil: 'commit' });
    await page.waitForSelector('#delete-button');
    await page.tap('#delete-button', { force: true, noWaitAfter: true });
    await sleep(500);
    releaseAgain();
    await page.waitForSelector('#file:enabled');
    assert.deepEqual(sent, ['consent']);
    const agent = await callTool(phone.stack.baseUrl, 'get_skin_scan', scan);
    assert.equal(agent.structuredContent.status, 'awaiting_upload');
  });

  it('a file the browser cannot read: the words to act on, and no "Preparing" left on screen', async () => {
    const scan = await startScan(phone.stack.baseUrl);
    const page = await newPage();
    await page.goto(uploadUrl(scan.run_id));
    await consentOnPage(page);
    // A JPEG's first bytes and then nothing a decoder can use, as a photo cut short in a download is.
    const broken = join(resolve('.data/test-photos'), 'cut-short.jpg');
    writeFileSync(broken, Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(4096, 1)]));
    const sent = posts(page);
    await page.setInputFiles('#file', broken);
    await page.locator('#alert', { hasText: PAGE_WORDS.unreadable }).waitFor();
    assert.equal(await page.textContent('#status'), PAGE_WORDS.awaitingPhoto);
    assert.deepEqual(sent, []);
    assert.equal(await page.isDisabled('#file'), false);
    await assertAccessible(page, 'an unreadable file');

    await page.setInputFiles('#file', phone.face);
    await shown(page, 'progress', 30_000);
    assert.equal(await page.textContent('#status'), PAGE_WORDS.queued);
    assert.equal(await page.textContent('#alert'), '');
  });

  it('the bot check failing is said as it is, and the next tap runs it afresh; a scan deleted meanwhile is gone', async () => {
    const scan = await startScan(phone.stack.baseUrl);
    const page = await newPage();
    const unavailable = (route: Route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({ error: 'unavailable', message: REFUSALS.unavailable.message }),
      });
    await page.route('**/challenge', unavailable);
    await page.goto(uploadUrl(scan.run_id));
    await page.tap('#consent-check');
    await page.tap('#consent-submit');
    await page.locator('#alert', { hasText: REFUSALS.unavailable.message }).waitFor();
    assert.equal(await page.isDisabled('#consent-submit'), false);
    await page.unroute('**/challenge', unavailable);
    await page.tap('#consent-submit');
    await shown(page, 'photo', 30_000);
    assert.equal(await page.textContent('#alert'), '');

    // The agent deletes its scan while the person reads the consent text.
    const deleted = await startScan(phone.stack.baseUrl);
    const other = await newPage();
    await other.goto(uploadUrl(deleted.run_id));
    await callTool(phone.stack.baseUrl, 'delete_skin_scan', deleted);
    await other.tap('#consent-check');
    await other.tap('#consent-submit');
    await shown(other, 'gone', 30_000);
    assert.equal(await other.textContent('#gone-message'), PAGE_WORDS.gone);
  });

  it('a browser that keeps no cookies is told so before anything is recorded; the link still works elsewhere', async () => {
    const scan = await startScan(phone.stack.baseUrl);
    const page = await newPage();
    // Every answer reaches the page without its Set-Cookie, as in a browser that blocks cookies.
    await page.route(`**/scan/${scan.run_id}**`, async (route) => {
      const request = route.request();
      const response = await fetch(request.url(), {
        method: request.method(),
        headers: Object.fromEntries(
          Object.entries(await request.allHeaders()).filter(([name]) => !HOP_BY_HOP.has(name)),
        ),
        body: request.postDataBuffer(),
        redirect: 'manual',
      });
      const headers = Object.fromEntries([...response.headers].filter(([name]) => name !== 'set-cookie'));
      await route.fulfill({
        status: response.status,
        headers,
        body: Buffer.from(await response.arrayBuffer()),
      });
    });
    await page.goto(uploadUrl(scan.run_id));
    await page.tap('#consent-check');
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/consent')),
      page.tap('#consent-submit'),
    ]);
    assert.equal(answer.status(), 403);
    assert.deepEqual(await answer.json(), {
      error: 'cookies_blocked',
      message: REFUSALS.cookies_blocked.message,
    });
    await page.locator('#alert', { hasText: REFUSALS.cookies_blocked.message }).waitFor();
    assert.equal(await page.getAttribute('#scan', 'data-step'), 'consent');
    await assertAccessible(page, 'cookies blocked');

    // Nothing was bound to a cookie the browser threw away: a browser that keeps cookies can still consent.
    const keeping = await newPage();
    await keeping.goto(uploadUrl(scan.run_id));
    const check = (await keeping.context().cookies()).find((c) => c.name === '__Host-skinmatch-cookies');
    assert.deepEqual(check && [check.value, check.path, check.secure, check.httpOnly, check.sameSite], [
      '1',
      '/',
      true,
      true,
      'Strict',
    ]);
    await consentOnPage(keeping);
    await keeping.setInputFiles('#file', phone.face);
    await shown(keeping, 'progress', 30_000);
  });

  it("one browser, two scans: each stays its own (consent and deletion keep the browser's cookie)", async () => {
    const first = await startScan(phone.stack.baseUrl);
    const second = await startScan(phone.stack.baseUrl);
    const page = await newPage();
    const cookie = async () =>
      (await page.context().cookies()).find((c) => c.name === '__Host-skinmatch-browser')?.value;
    await page.goto(uploadUrl(first.run_id));
    await consentOnPage(page);
    const held = await cookie();
    await page.goto(uploadUrl(second.run_id));
    await consentOnPage(page);
    assert.equal((await cookie()) === held, true, 'the browser kept its cookie');
    await page.goto(uploadUrl(first.run_id));
    await shown(page, 'photo');
    await page.setInputFiles('#file', phone.face);
    await shown(page, 'progress', 30_000);

    // Deleting the second scan from its page leaves the first one this browser's own.
    await page.goto(uploadUrl(second.run_id));
    await page.click('#delete-button'); // the confirm dialog is accepted
    await shown(page, 'gone');
    assert.equal(await page.textContent('#gone-title'), PAGE_WORDS.deletedTitle);
    await page.goto(uploadUrl(first.run_id));
    await shown(page, 'progress');
  });

  it('the consent row is one tap target of 44 px or more; a photo over PHOTO_MAX_BYTES is fine, as the page says', async () => {
    const scan = await startScan(phone.stack.baseUrl);
    const page = await newPage();
    await page.goto(uploadUrl(scan.run_id));
    await page.waitForSelector('#consent-submit:enabled');
    const row = await page.locator('label[for="consent-check"]').boundingBox();
    const form = await page.locator('#consent-form').boundingBox();
    assert.ok(row && form);
    assert.ok(row.height >= 44, `the row is ${row.height} px tall`);
    assert.ok(row.width >= form.width - 1, `the row is ${row.width} of ${form.width} px wide`);
    // A tap at the row's far end, away from the box and its words, ticks the box.
    await page.touchscreen.tap(row.x + row.width - 4, row.y + row.height - 4);
    assert.equal(await page.isChecked('#consent-check'), true);
    await assertAccessible(page, 'the consent row');
    await page.tap('#consent-submit');
    await shown(page, 'photo', 30_000);
    assert.match(
      (await page.textContent('#photo-step')) ?? '',
      /Large photos are fine: the page makes them smaller before sending them\./,
    );
    // A 48 MP camera JPEG of 12 MB and more, over the 10 MB bound: made smaller, sent, taken.
    const big = join(resolve('.data/test-photos'), 'camera-48mp.jpg');
    const noise = await sharp({
      create: {
        width: 8000,
        height: 6000,
        channels: 3,
        background: '#808080',
        noise: { type: 'gaussian', mean: 128, sigma: 30 },
      },
    })
      .blur(0.6)
      .jpeg({ quality: 98 })
      .toBuffer();
    assert.ok(noise.length > 12 * 1024 * 1024, `${noise.length} bytes`);
    writeFileSync(big, noise);
    const [sent] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/photo')),
      page.setInputFiles('#file', big),
    ]);
    assert.equal(sent.status(), 202);
    await shown(page, 'progress', 30_000);
  });

  it('a scan deleted while the progress stream was down: the gone step, not "check that you are online"', async () => {
    const scan = await startScan(phone.stack.baseUrl);
    const page = await newPage();
    await page.goto(uploadUrl(scan.run_id));
    await consentOnPage(page);
    // The stream's first connection fails (a phone out of coverage); EventSource tries again on its own.
    let dropped = () => {};
    const down = new Promise<void>((done) => (dropped = done));
    const unreachable = async (route: Route) => {
      dropped();
      await route.abort('internetdisconnected');
    };
    await page.route('**/events', unreachable, { times: 1 });
    await page.setInputFiles('#file', phone.face);
    await shown(page, 'progress', 30_000);
    await down;
    await callTool(phone.stack.baseUrl, 'delete_skin_scan', scan);
    await shown(page, 'gone', 30_000);
    // Deleted elsewhere, or expired: the page cannot tell which, and says neither.
    assert.equal(await page.textContent('#gone-title'), PAGE_WORDS.goneTitle);
    assert.equal(await page.textContent('#gone-message'), PAGE_WORDS.gone);
    assert.equal(await page.textContent('#alert'), '');
  });
});
