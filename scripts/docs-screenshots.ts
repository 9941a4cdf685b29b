/**
 * `npm run docs:screenshots`: the upload page in each of its states, at a phone's 390×844 and a laptop's
 * 1280×800, into docs/screenshots/. The real product runs (PostgreSQL, core, façade, the inference process
 * scoring a real face photo) and headless Chromium goes through the page as a person does.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import {
  consentOnPage,
  photoFile,
  shown,
  startProductStack,
  startScan,
} from '../test/intake/scan-page-browser-support.ts';
import { launchBrowser } from '../test/support/browser.ts';
import { stopTestDatabaseServer } from '../test/support/database.ts';
import { connectSdkClient } from '../test/support/mcp.ts';

const OUT = resolve('docs/screenshots');
const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
];

mkdirSync(OUT, { recursive: true });
// Stages slowed so that the analysis can be caught half way.
const product = await startProductStack('docs-screenshots', { stageDelayMs: 1200 });
const agent = await connectSdkClient(product.stack.baseUrl);
const browser = await launchBrowser();
const face = await photoFile('face');
const group = await photoFile('group');
const written: string[] = [];

async function page(browser: Browser, viewport: { width: number; height: number }): Promise<Page> {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
  const each = await context.newPage();
  each.on('dialog', (dialog) => dialog.accept());
  return each;
}

async function shot(each: Page, state: string): Promise<void> {
  const { width, height } = each.viewportSize()!;
  const file = join(OUT, `${state}-${width}x${height}.png`);
  await each.screenshot({ path: file, fullPage: true });
  written.push(file);
}

try {
  for (const viewport of VIEWPORTS) {
    // The whole way with a face photo, and what a second browser with the link sees meanwhile.
    const scan = await startScan(agent);
    const person = await page(browser, viewport);
    await person.goto(scan.upload_url);
    await shot(person, '1-consent');
    await consentOnPage(person);
    await shot(person, '2-photo');
    const other = await page(browser, viewport);
    await other.goto(scan.upload_url);
    await shot(other, '7-another-browser');
    await person.setInputFiles('#file', face);
    await person.locator('#status', { hasText: /[1-9]\d*%$/ }).waitFor({ timeout: 60_000 });
    await shot(person, '3-analysing');
    await shown(person, 'done');
    await shot(person, '4-complete');

    // A photo with several faces: the words to act on and the retake; then the person deletes the scan.
    const failing = await startScan(agent);
    const retaker = await page(browser, viewport);
    await retaker.goto(failing.upload_url);
    await consentOnPage(retaker);
    await retaker.setInputFiles('#file', group);
    await shown(retaker, 'failed');
    await shot(retaker, '5-failed');
    await retaker.click('#delete-button');
    await shown(retaker, 'gone');
    await shot(retaker, '6-deleted');
    await retaker.goto(failing.upload_url);
    await shot(retaker, '8-not-found');
    for (const each of [person, other, retaker]) await each.context().close();
  }
  for (const file of written) console.log(file);
} finally {
  await agent.close();
  await browser.close();
  await product.close();
  await stopTestDatabaseServer();
}
