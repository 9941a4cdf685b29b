/**
 * The upload page over plain HTTP, as its script in a browser would use it: a scan started by an agent on
 * /mcp, the challenge fetched from the page and solved as the widget would, consent posted with the page's
 * Origin, and the `__Host-` cookies carried by hand. Plus exact checks of the page's JSON refusals.
 */
import assert from 'node:assert/strict';
import { CONSENT_VERSION } from '../../services/intake/consent.ts';
import { solveAltcha } from '../support/intake.ts';
import { callTool } from '../support/mcp.ts';

export const BROWSER_COOKIE = '__Host-skinmatch-browser';
const COOKIE_CHECK = '__Host-skinmatch-cookies';

export interface AgentScan {
  readonly run_id: string;
  readonly access_token: string;
}

export interface PageScan extends AgentScan {
  /** The consent cookie's value: this test's "browser". */
  readonly secret: string;
}

export async function startScan(base: string): Promise<AgentScan> {
  const { structuredContent } = await callTool(base, 'start_skin_scan', { source: 'scan page test' });
  return { run_id: structuredContent.run_id, access_token: structuredContent.access_token };
}

export interface PageRequest {
  readonly method?: string;
  readonly secret?: string;
  /** The Origin header; the page's own by default, none with null. */
  readonly origin?: string | null;
  readonly headers?: Record<string, string>;
  readonly body?: RequestInit['body'];
  readonly signal?: AbortSignal;
}

/** One request to `path` of the page, as the page's script would send it. */
export function pageFetch(base: string, path: string, request: PageRequest = {}): Promise<Response> {
  const headers: Record<string, string> = { ...request.headers };
  const origin = request.origin === undefined ? base : request.origin;
  if (origin !== null) headers.origin = origin;
  // The cookie the page sets for a browser that has not consented, sent back as a browser keeping cookies does.
  headers.cookie = `${COOKIE_CHECK}=1`;
  if (request.secret) headers.cookie += `; ${BROWSER_COOKIE}=${request.secret}`;
  const { method = 'GET', body, signal } = request;
  return fetch(`${base}${path}`, { method, headers, body, signal });
}

/** A challenge from the page, solved as the widget does. */
export async function solvedChallenge(base: string, runId: string): Promise<string> {
  const res = await pageFetch(base, `/scan/${runId}/challenge`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  return solveAltcha(await res.text());
}

export function postConsent(base: string, runId: string, body: unknown, request: PageRequest = {}) {
  return pageFetch(base, `/scan/${runId}/consent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...request,
  });
}

/** Consents on the page; answers the cookie's value. */
export async function consentOnPage(base: string, runId: string): Promise<string> {
  const solution = await solvedChallenge(base, runId);
  const res = await postConsent(base, runId, {
    consent_version: CONSENT_VERSION,
    challenge_solution: solution,
  });
  assert.equal(res.status, 200, await res.clone().text());
  const cookie = res.headers.getSetCookie()[0] ?? '';
  const secret = new RegExp(`^${BROWSER_COOKIE}=([0-9a-f]{64});`).exec(cookie)?.[1];
  assert.ok(secret, cookie);
  return secret;
}

/** A scan an agent started and a browser consented to on its page. */
export async function pageScan(base: string): Promise<PageScan> {
  const scan = await startScan(base);
  return { ...scan, secret: await consentOnPage(base, scan.run_id) };
}

export function postPhoto(base: string, runId: string, photo: Uint8Array, request: PageRequest = {}) {
  return pageFetch(base, `/scan/${runId}/photo`, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream' },
    body: photo,
    ...request,
  });
}

/** Asserts a JSON refusal: its status, `error` and `message` exactly. */
export async function assertRefusal(res: Response, status: number, error: string, message: string | RegExp) {
  const text = await res.text();
  assert.equal(res.status, status, text);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(res.headers.get('cache-control'), 'no-store');
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  const body = JSON.parse(text) as { error: string; message: string };
  assert.deepEqual(Object.keys(body), ['error', 'message']);
  assert.equal(body.error, error);
  if (typeof message === 'string') assert.equal(body.message, message);
  else assert.match(body.message, message);
}
