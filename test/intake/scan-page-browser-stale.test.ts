// The page is only as fresh as the last state it was sent; the scan can move on without it: another tab of
// the same browser consents or sends the photo, the browser's cookies are cleared, the phone loses its
// network while the photo is analysed. Each time the page shows what is true now — the step, the status line
// and the alert agree — and says so while it is out of touch.
import assert from 'node:assert/strict';
import type { BrowserContext, Page, Route } from 'playwright-core';
import { PAGE_WORDS } from '../../facade/pages/scan-html.ts';
import { REFUSALS } from '../../facade/pages/scan-words.ts';
import { completeScan, RED_ACNE_SCORES } from '../support/fixtures.ts';
import { IN_ANOTHER_BROWSER } from '../support/page-states.ts';
import {
  assertAccessible,
  consentOnPage,
  phoneSuite,
  recordStatuses,
  shown,
  sleep,
  statuses,
} from './scan-page-browser-support.ts';
import { type AgentScan, startScan } from './scan-page-support.ts';

describe('the upload page after the scan changed elsewhere', function () {
  this.timeout(120_000);
  const phone = phoneSuite('scan-page-browser-stale');

  async function newContext(): Promise<BrowserContext> {
    const context = await phone.newContext();
    return context;
  }

  async function open(context: BrowserContext, scan: AgentScan): Promise<Page> {
    const page = await context.newPage();
    page.on('dialog', (dialog) => dialog.accept());
    await page.goto(`${phone.stack.baseUrl}/scan/${scan.run_id}`);
    return page;
  }

  /** The person comes back to this tab (the browser tells the page it is visible again). */
  const comeBack = (page: Page) =>
    page.evaluate(() => (globalThis as any).document.dispatchEvent(new Event('visibilitychange')));

  const statusIs = (page: Page, words: string, timeout: number) =>
    page.waitForFunction(
      (want) => (globalThis as any).document.getElementById('status').textContent === want,
      words,
      { timeout },
    );

  const stepOf = (page: Page) => page.getAttribute('#scan', 'data-step');

  it('two tabs: the other one catches up when looked at again, and a photo it sends late shows the scan done', async () => {
    const scan = await startScan(phone.stack.baseUrl);
    const context = await newContext();
    const first = await open(context, scan);
    const second = await open(context, scan);
    await shown(second, 'consent');
    await consentOnPage(first);
    await comeBack(second);
    await shown(second, 'photo', 10_000);
    assert.equal(await second.textContent('#status'), PAGE_WORDS.awaitingPhoto);
    // The second tab's own looks at the scan (every few seconds while it asks for a photo) kept from it.
    const cutOff = (route: Route) => route.abort('internetdisconnected');
    await second.route('**/state', cutOff);

    await first.setInputFiles('#file', phone.face);
    await shown(first, 'progress', 30_000);
    await completeScan(phone.stack.orm, scan.run_id, RED_ACNE_SCORES);
    // The first tab follows the analysis to its end (its progress stream is open).
    await comeBack(first);
    await shown(first, 'done', 10_000);

    // The second tab has not caught up: it still asks for a photo, and the person sends one.
    assert.equal(await stepOf(second), 'photo');
    await second.unroute('**/state', cutOff);
    const [refused] = await Promise.all([
      second.waitForResponse((r) => r.url().endsWith('/photo')),
      second.setInputFiles('#file', phone.face),
    ]);
    assert.equal(refused.status(), 409);
    await shown(second, 'done', 10_000);
    assert.equal(await second.textContent('#status'), PAGE_WORDS.complete);
    assert.equal(await second.textContent('#alert'), REFUSALS.upload_closed.message);
    await assertAccessible(second, 'a late photo on a finished scan');
  });

  it('cookies cleared after agreeing: the page says the scan is in other hands, not "You agreed"', async () => {
    const scan = await startScan(phone.stack.baseUrl);
    const context = await newContext();
    const page = await open(context, scan);
    await consentOnPage(page);
    await context.clearCookies();
    const [refused] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/photo')),
      page.setInputFiles('#file', phone.face),
    ]);
    assert.equal(refused.status(), 403);
    await shown(page, 'elsewhere', 10_000);
    assert.equal(await page.textContent('#status'), '');
    assert.equal(await page.textContent('#alert'), REFUSALS.not_consenting_browser.message);
    assert.equal(await page.isVisible('#photo-step'), false);
    assert.equal(await page.isVisible('#delete-step'), false);
    // What the page asked: nothing of the scan but that another browser holds it; an unknown scan is gone.
    const asked = await page.evaluate(async (base) => {
      const ask = async (path: string) => {
        const r = await fetch(path);
        return [r.status, await r.json()];
      };
      return [await ask(`${base}/state`), await ask('/scan/00000000-0000-4000-8000-000000000000/state')];
    }, `/scan/${scan.run_id}`);
    assert.deepEqual(asked, [
      [200, { state: IN_ANOTHER_BROWSER }],
      [404, { error: 'not_found', message: REFUSALS.not_found.message }],
    ]);
  });

  it('another browser agreed while this one read the text: its consent refused, the page shows "elsewhere"', async () => {
    const scan = await startScan(phone.stack.baseUrl);
    const late = await open(await newContext(), scan);
    await shown(late, 'consent');
    await consentOnPage(await open(await newContext(), scan));
    await late.check('#consent-check');
    const [refused] = await Promise.all([
      late.waitForResponse((r) => r.url().endsWith('/consent')),
      late.click('#consent-submit'),
    ]);
    assert.equal(refused.status(), 403);
    assert.equal(((await refused.json()) as { error: string }).error, 'consent_taken');
    await shown(late, 'elsewhere', 10_000);
    assert.equal(await late.textContent('#alert'), REFUSALS.consent_taken.message);
  });

  it('the progress stream down while the photo waits: "Reconnecting…" until it is back', async () => {
    const scan = await startScan(phone.stack.baseUrl);
    const page = await open(await newContext(), scan);
    await consentOnPage(page);
    // Out of coverage: every connection of the stream fails; EventSource keeps trying on its own.
    const unreachable = (route: Route) => route.abort('internetdisconnected');
    await page.route('**/events', unreachable);
    await page.setInputFiles('#file', phone.face);
    await shown(page, 'progress', 30_000);
    await statusIs(page, PAGE_WORDS.reconnecting, 10_000);
    await assertAccessible(page, 'reconnecting');
    await page.unroute('**/events', unreachable);
    await statusIs(page, PAGE_WORDS.queued, 20_000);
    assert.equal(await stepOf(page), 'progress');
    assert.equal(await page.textContent('#alert'), '');
  });

  for (const [status, reason] of [
    [429, 'rate_limited'],
    [503, 'unavailable'],
  ] as const) {
    it(`the progress stream refused (${status}): the page asks for the scan every few seconds and shows the result`, async () => {
      const scan = await startScan(phone.stack.baseUrl);
      const page = await open(await newContext(), scan);
      await consentOnPage(page);
      // Too many tabs of this scan open, too many streams from this network, or core holding all it may.
      await page.route('**/events', (route) =>
        route.fulfill({
          status,
          contentType: 'application/json',
          body: JSON.stringify({ error: reason, message: REFUSALS.unavailable.message }),
        }),
      );
      const asked = () => page.waitForResponse((r) => r.url().endsWith('/state'), { timeout: 10_000 });
      await page.setInputFiles('#file', phone.face);
      await shown(page, 'progress', 30_000);
      await asked();
      assert.equal(await page.textContent('#status'), PAGE_WORDS.queued);
      assert.equal(await page.textContent('#alert'), '', 'no dead end while the analysis runs');
      await completeScan(phone.stack.orm, scan.run_id, RED_ACNE_SCORES);
      await shown(page, 'done', 10_000);
      assert.equal(await page.textContent('#status'), PAGE_WORDS.complete);
      // Done: the page stops asking.
      await assert.rejects(
        page.waitForResponse((r) => r.url().endsWith('/state'), { timeout: 4000 }),
        /Timeout/,
      );
    });
  }

  it('a stream at the end of its lifetime (`renew`): the page opens the next one at once, not "Reconnecting…"', async () => {
    const scan = await startScan(phone.stack.baseUrl);
    const page = await (await newContext()).newPage();
    await recordStatuses(page);
    await page.goto(`${phone.stack.baseUrl}/scan/${scan.run_id}`);
    await consentOnPage(page);
    let streams = 0;
    let reopen = () => {};
    const reopened = new Promise<void>((done) => (reopen = done));
    page.on('request', (r) => {
      if (r.url().endsWith('/events') && ++streams === 2) reopen();
    });
    // The façade's first stream ends at once with `renew`; the next one is the façade's own.
    const renew = 'event: renew\ndata: {}\n\n';
    await page.route(
      '**/events',
      (route) => route.fulfill({ status: 200, contentType: 'text/event-stream', body: renew }),
      { times: 1 },
    );
    await page.setInputFiles('#file', phone.face);
    await reopened;
    // The page shows the scan queued once the next stream's state has come (waited for: a fixed second
    // assumed it came within it, which a loaded machine need not); a second on, it opened no third stream.
    await shown(page, 'progress', 10_000);
    await statusIs(page, PAGE_WORDS.queued, 10_000);
    await sleep(1000);
    assert.equal(streams, 2);
    assert.equal(await stepOf(page), 'progress');
    assert.equal(await page.textContent('#status'), PAGE_WORDS.queued);
    assert.ok(!(await statuses(page)).includes(PAGE_WORDS.reconnecting));
  });

  it('cookies cleared while the stream was down: refused on reconnecting, the page shows "elsewhere"', async () => {
    const scan = await startScan(phone.stack.baseUrl);
    const context = await newContext();
    const page = await open(context, scan);
    await consentOnPage(page);
    const unreachable = (route: Route) => route.abort('internetdisconnected');
    await page.route('**/events', unreachable);
    await page.setInputFiles('#file', phone.face);
    await statusIs(page, PAGE_WORDS.reconnecting, 10_000);
    await context.clearCookies();
    await page.unroute('**/events', unreachable);
    await shown(page, 'elsewhere', 20_000);
    assert.equal(await page.textContent('#status'), '');
    assert.equal(await page.textContent('#alert'), REFUSALS.not_consenting_browser.message);
  });
});
