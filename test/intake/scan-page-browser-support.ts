/**
 * The whole product for browser tests, screenshots and the upload benchmark: PostgreSQL, core, the façade
 * and the inference service as its own process scoring real photos; headless Chromium as the person and the
 * MCP SDK client as the agent.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { createConnectTransport } from '@connectrpc/connect-node';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { freePort, waitForPort } from '../../scripts/port.ts';
import { InferenceAnalyzer } from '../../services/scan/inference-analyzer.ts';
import { groupPhoto, singleFace } from '../inference/support/photos.ts';
import { browserSuite } from '../support/browser.ts';
import { TEST_CATALOG } from '../support/fixtures.ts';
import { connectSdkClient } from '../support/mcp.ts';
import { type Stack, type StackOptions, startStack } from '../support/stack.ts';

export interface ProductStack {
  readonly stack: Stack;
  close(): Promise<void>;
}

/** The inference service as its own process, as in production; each stage slowed by `stageDelayMs`. */
export async function startInferenceProcess(port: number, stageDelayMs = 0): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['services/inference/main.ts'], {
    env: {
      ...process.env,
      INFERENCE_PORT: String(port),
      INFERENCE_STAGE_DELAY_MS: stageDelayMs ? String(stageDelayMs) : '',
    },
    stdio: 'ignore',
  });
  if (!(await waitForPort(port, 60_000))) throw new Error('inference did not start');
  return child;
}

export async function startProductStack(
  name: string,
  options: { stageDelayMs?: number } & StackOptions = {},
): Promise<ProductStack> {
  const port = await freePort();
  const inference = await startInferenceProcess(port, options.stageDelayMs);
  const transport = createConnectTransport({ baseUrl: `http://127.0.0.1:${port}`, httpVersion: '2' });
  const stack = await startStack(name, {
    products: TEST_CATALOG,
    analyzer: new InferenceAnalyzer(transport, 30_000),
    ...options,
  });
  return {
    stack,
    close: async () => {
      inference.kill('SIGKILL');
      await stack.close();
    },
  };
}

export interface StartedScan {
  readonly run_id: string;
  readonly access_token: string;
  readonly upload_url: string;
  readonly next_action: string;
}

/** The agent starts a scan with the real MCP SDK client. */
export async function startScan(agent: Client): Promise<StartedScan> {
  const result = await agent.callTool({ name: 'start_skin_scan', arguments: { source: 'browser-test' } });
  assert.equal(result.isError, undefined, JSON.stringify(result));
  return result.structuredContent as unknown as StartedScan;
}

/** The agent polls get_skin_scan, waiting what it is told, until next_action is no longer poll/share. */
export async function followScan(agent: Client, scan: StartedScan, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await agent.callTool({
      name: 'get_skin_scan',
      arguments: { run_id: scan.run_id, access_token: scan.access_token },
    });
    assert.equal(result.isError, undefined, JSON.stringify(result));
    const state = result.structuredContent as Record<string, any>;
    if (state.next_action !== 'poll' && state.next_action !== 'share_upload_url') return state;
    if (Date.now() > deadline) throw new Error(`scan stuck at ${JSON.stringify(state)}`);
    // Honour retry_after_seconds, but never sleep past the deadline (the test's own patience).
    await sleep(Math.min(Number(state.retry_after_seconds) * 1000 || 100, 250));
  }
}

export const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Writes a test photo to a file for the page's file input. */
export async function photoFile(name: 'face' | 'group'): Promise<string> {
  const dir = resolve('.data/test-photos');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.jpg`);
  writeFileSync(path, name === 'face' ? await singleFace('a') : groupPhoto(1));
  return path;
}

/** Ticks the consent box and agrees; the real widget solves core's challenge on the way. */
export async function consentOnPage(page: Page): Promise<void> {
  await page.check('#consent-check');
  await page.click('#consent-submit');
  await page.waitForSelector('#photo-step:not([hidden])', { timeout: 30_000 });
}

/** The same by keyboard alone: Tab to the box, Space, Tab to the button, Enter. */
export async function consentByKeyboard(page: Page): Promise<void> {
  const focusOn = async (id: string) => {
    for (let i = 0; i < 30; i++) {
      await page.keyboard.press('Tab');
      if (await page.evaluate((want) => (globalThis as any).document.activeElement?.id === want, id)) return;
    }
    throw new Error(`Tab never reached #${id}`);
  };
  await focusOn('consent-check');
  await page.keyboard.press('Space');
  await focusOn('consent-submit');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#photo-step:not([hidden])', { timeout: 30_000 });
}

export const shown = (page: Page, step: string, timeout = 60_000) =>
  page.waitForSelector(`#${step}-step:not([hidden])`, { timeout });

/** axe-core finds no violation on the page as it is now. */
export async function assertAccessible(page: Page, label: string): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  assert.deepEqual(
    violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    [],
    `axe violations on ${label}`,
  );
}

/** Every text the live region showed, in order (installed before the page loads; the script runs in the page). */
export async function recordStatuses(page: Page): Promise<void> {
  await page.addInitScript({
    content: `
      globalThis.statuses = [];
      document.addEventListener('DOMContentLoaded', () => {
        const status = document.getElementById('status');
        const record = () => globalThis.statuses.push(status.textContent);
        record();
        new MutationObserver(record).observe(status, { childList: true, characterData: true, subtree: true });
      });`,
  });
}

export const statuses = (page: Page): Promise<string[]> => page.evaluate('globalThis.statuses');

/** A phone: 390×844, touch, 3× pixels. */
export const PHONE = {
  viewport: { width: 390, height: 844 },
  hasTouch: true,
  isMobile: true,
  deviceScaleFactor: 3,
};

/**
 * For a describe of phone pages: a stack with no analyzer (a photo sent stays queued until the test
 * completes the scan), a browser and the face photo, for the whole suite; each phone context is closed
 * after its test.
 */
export function phoneSuite(name: string) {
  const chromium = browserSuite();
  const suite = {
    stack: undefined as unknown as Stack,
    face: '',
    newContext: (options: BrowserContextOptions = {}): Promise<BrowserContext> =>
      chromium.newContext({ ...PHONE, ...options }),
    newPage: (): Promise<Page> => chromium.newPage(PHONE),
  };
  before(async () => {
    suite.stack = await startStack(name);
    suite.face = await photoFile('face');
  });
  after(async () => {
    await suite.stack?.close();
  });
  return suite;
}

/**
 * For a describe of pages with the whole product (startProductStack) and the agent (the MCP SDK client), for
 * the whole suite; `newPage` opens one in a context of its own (390×844 unless told), closed after its test.
 */
export function productSuite(name: string, options: { stageDelayMs?: number } = {}) {
  const chromium = browserSuite();
  const suite = {
    product: undefined as unknown as ProductStack,
    agent: undefined as unknown as Client,
    newPage: (viewport = { width: 390, height: 844 }): Promise<Page> => chromium.newPage({ viewport }),
  };
  before(async () => {
    suite.product = await startProductStack(name, options);
    suite.agent = await connectSdkClient(suite.product.stack.baseUrl);
  });
  after(async () => {
    await suite.agent?.close();
    await suite.product?.close();
  });
  return suite;
}
