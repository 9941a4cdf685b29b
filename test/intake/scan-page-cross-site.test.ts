// The link opened again from the person's web chat: a page on another site (a second local HTTP server, on
// `localhost` while the service is on `127.0.0.1`: another site) links to upload_url and save_url. The
// consent cookie is SameSite=Strict, so such a navigation carries none; the page must still know the
// browser that agreed — in the same tab, in a new one (target=_blank), after a reload — at every step of the
// scan, and its save page too. A browser that never agreed still sees only that the scan is elsewhere.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { escapeHtml } from '../../facade/oauth/pages.ts';
import { browserSuite } from '../support/browser.ts';
import { completeScan, RED_ACNE_SCORES } from '../support/fixtures.ts';
import { callTool } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';
import { consentOnPage, PHONE, photoFile, shown } from './scan-page-browser-support.ts';
import { type AgentScan, startScan } from './scan-page-support.ts';

const STEPS = ['consent', 'elsewhere', 'photo', 'progress', 'done'];

describe('the upload and save links opened from a page on another site', function () {
  this.timeout(120_000);
  let stack: Stack;
  let chat: Server;
  let chatUrl: string;
  let face: string;
  /** The links the chat page shows, by its path's scan. */
  const links = new Map<string, string[]>();
  const chromium = browserSuite();
  const newPage = () => chromium.newPage(PHONE);

  before(async () => {
    stack = await startStack('scan-page-cross-site');
    face = await photoFile('face');
    chat = createServer((req, res) => {
      const urls = links.get(req.url ?? '') ?? [];
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(
        `<!doctype html><title>chat</title>${urls
          .map(
            (url, i) =>
              `<p><a id="same-${i}" href="${escapeHtml(url)}">link</a>` +
              `<a id="blank-${i}" target="_blank" href="${escapeHtml(url)}">new tab</a></p>`,
          )
          .join('')}`,
      );
    });
    await new Promise<void>((done) => chat.listen(0, '127.0.0.1', done));
    chatUrl = `http://localhost:${(chat.address() as AddressInfo).port}`;
    assert.notEqual(new URL(chatUrl).hostname, new URL(stack.baseUrl).hostname);
  });
  after(async () => {
    await stack?.close();
    await new Promise((done) => chat?.close(done));
  });

  const uploadUrl = (scan: AgentScan) => `${stack.baseUrl}/scan/${scan.run_id}`;

  /** The chat page at its own path for this scan, with the given links. */
  function chatFor(scan: AgentScan, urls: string[]): string {
    links.set(`/${scan.run_id}`, urls);
    return `${chatUrl}/${scan.run_id}`;
  }

  /** The step the scan page settles on. */
  async function stepOf(page: Page): Promise<string> {
    await page.waitForSelector(STEPS.map((s) => `#${s}-step:not([hidden])`).join(', '), { timeout: 30_000 });
    return (await page.getAttribute('#scan', 'data-step')) ?? '';
  }

  /** Taps the chat's link in the same tab, then in a new tab: the step each shows. */
  async function fromChat(page: Page, chatPage: string, i = 0): Promise<[string, string]> {
    await page.goto(chatPage);
    await Promise.all([page.waitForURL(/\/scan\//), page.tap(`#same-${i}`)]);
    const same = await stepOf(page);
    await page.goto(chatPage);
    const [tab] = await Promise.all([page.context().waitForEvent('page'), page.tap(`#blank-${i}`)]);
    await tab.waitForURL(/\/scan\//);
    const blank = await stepOf(tab);
    await tab.close();
    return [same, blank];
  }

  it('the browser that agreed finds its scan at every step; another browser sees "elsewhere"', async () => {
    const scan = await startScan(stack.baseUrl);
    const chatPage = chatFor(scan, [uploadUrl(scan)]);
    const page = await newPage();
    // First open from the chat: nothing agreed yet, so consent, with no detour.
    await page.goto(chatPage);
    const [first] = await Promise.all([
      page.waitForResponse((r) => r.url() === uploadUrl(scan)),
      page.tap('#same-0'),
    ]);
    assert.equal(first.status(), 200);
    assert.equal(await stepOf(page), 'consent');
    await consentOnPage(page);
    const cookie = (await page.context().cookies()).find((c) => c.name === '__Host-skinmatch-browser');
    assert.equal(cookie?.sameSite, 'Strict');

    assert.deepEqual(await fromChat(page, chatPage), ['photo', 'photo']);
    // A reload of the page the chat opened stays with this browser.
    await page.goto(chatPage);
    await Promise.all([page.waitForURL(/\/scan\//), page.tap('#same-0')]);
    assert.equal(await stepOf(page), 'photo');
    await page.reload();
    assert.equal(await stepOf(page), 'photo');
    // The person can still send the photo from the page the chat opened.
    await page.setInputFiles('#file', face);
    await shown(page, 'progress', 30_000);

    assert.deepEqual(await fromChat(page, chatPage), ['progress', 'progress']);
    await completeScan(stack.orm, scan.run_id, RED_ACNE_SCORES);
    assert.deepEqual(await fromChat(page, chatPage), ['done', 'done']);

    // A browser that never agreed, from the same chat page: only that someone else did.
    const other = await newPage();
    assert.deepEqual(await fromChat(other, chatPage), ['elsewhere', 'elsewhere']);
    await other.goto(uploadUrl(scan));
    assert.equal(await stepOf(other), 'elsewhere');
    assert.equal(await other.textContent('#status'), '');
  });

  it('the save link from the chat opens the save page in the browser that agreed, and in no other', async () => {
    const scan = await startScan(stack.baseUrl);
    const page = await newPage();
    await page.goto(uploadUrl(scan));
    await consentOnPage(page);
    await completeScan(stack.orm, scan.run_id, RED_ACNE_SCORES);
    const saveUrl = (await callTool(stack.baseUrl, 'get_skin_scan', scan)).structuredContent.save_url;
    assert.equal(saveUrl, `${stack.baseUrl}/save/${scan.run_id}`);
    // The save page, and a sign-in link of it (this stack has no such provider: past the browser check,
    // that is what the page says).
    const chatPage = chatFor(scan, [saveUrl, `${saveUrl}/sign-in/nowhere`]);

    const open = async (p: Page, i = 0) => {
      await p.goto(chatPage);
      await Promise.all([p.waitForURL(/\/save\//), p.tap(`#same-${i}`)]);
      // Past any page of our own that moves on by itself.
      await p.waitForFunction(() => {
        const h1 = (globalThis as any).document.querySelector('h1');
        return h1 && h1.textContent !== 'Opening your scan';
      });
      return p.textContent('h1');
    };
    assert.equal(await open(page), 'Save your skin scan');
    assert.equal(await open(page, 1), 'No such sign-in provider');
    const other = await newPage();
    assert.equal(await open(other), 'Open this link where you agreed');
    assert.equal(await open(other, 1), 'Open this link where you agreed');
  });
});
