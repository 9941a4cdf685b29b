/**
 * The person's upload page behind `upload_url`: `/scan/:id`. The façade serves the page and relays; core's
 * IntakeService decides everything (challenge, consent, who may upload, the photo checks, progress).
 *
 * GET  /scan/:id            the page, as this browser sees the scan
 * GET  /scan/:id/state      the scan as this browser sees it now, as JSON (the page asks when it may be stale)
 * GET  /scan/:id/challenge  a bot challenge for the consent form (the ALTCHA widget's challengeurl)
 * POST /scan/:id/consent    consent with the solved challenge: sets the `__Host-` consent cookie
 * POST /scan/:id/photo      the photo as the raw body, its size bound enforced while it streams in
 * GET  /scan/:id/events     progress as server-sent events, relayed from core's WatchIntake (a few per
 *                           scan and per network: page-streams.ts)
 * POST /scan/:id/delete     deletes the scan (its agent's token too) and the cookie
 * GET  /scan/assets/:version/:file  the page's script, style and the widget's files (page-assets.ts)
 *
 * A malformed, unknown, expired or deleted id gets the one identical 404 page (or a JSON `not_found`).
 * Every POST must come from a page of our own origin; refusals are JSON `{error, message}` with a status.
 * Every request but the files spends a point of the network's request budget, as MCP requests do: each
 * asks core (the challenge a key derivation, consent one more): one client unbounded took 530 challenges a
 * second and all the CPU of a façade and core. Over it: 429 with Retry-After, a page for the page, JSON else.
 */
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { type Client, Code, ConnectError } from '@connectrpc/connect';
import type { Context } from 'koa';
import { ErrorInfoSchema } from '../../gen/google/rpc/error_details_pb.ts';
import type { IntakeService, IntakeState } from '../../gen/skinmatch/v1/intake_pb.ts';
import { ScanStatus } from '../../gen/skinmatch/v1/scan_types_pb.ts';
import { CONSENT_TEXT, CONSENT_VERSION } from '../../services/intake/consent.ts';
import { errorReason } from '../../services/shared/errors.ts';
import type { Logger } from '../../services/shared/logger.ts';
import { pageStreamsRefused } from '../../services/shared/metrics.ts';
import type { Readiness } from '../../services/shared/shutdown.ts';
import { leaveUnread, readBody } from '../body.ts';
import { escapeHtml, page } from '../oauth/pages.ts';
import type { GuestLimits } from '../rate-limits.ts';
import { routeTemplate } from '../route-template.ts';
import { serveAsset } from './page-assets.ts';
import { KEEP_ALIVE_MS, relayEvents } from './page-events.ts';
import {
  BROWSER_COOKIE,
  bouncePage,
  browserSecret,
  COOKIE_CHECK,
  crossSiteNavigation,
  fromThisOrigin,
  keepsCookies,
  newNonce,
  pageCookie,
  setPageHeaders,
} from './page-security.ts';
import { toPageState } from './page-state.ts';
import { type StreamBounds, type StreamRefusal, StreamSlots } from './page-streams.ts';
import { readPhoto } from './photo-body.ts';
import { renderScanPage, SCAN_NOT_FOUND_HTML } from './scan-html.ts';
import {
  CONSENT_OUTDATED_WORDS,
  isRefusalReason,
  REFUSALS,
  type RefusalReason,
  refusalWords,
  streamBoundWords,
} from './scan-words.ts';

export const DEFAULT_PHOTO_MAX_BYTES = 10 * 1024 * 1024;
const ASSET_PATH = /^\/scan\/assets\/(?:([0-9a-f]{16})\/)?([^/]+)$/;
/** The page's address with a trailing slash, as a link is sometimes pasted or written by an agent. */
const PAGE_WITH_SLASH = /^\/scan\/([^/]+)\/$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const CONSENT_BODY_LIMIT = 64 * 1024;
/** Retry-After of a refusal for the service's own fault. */
const UNAVAILABLE_RETRY_SECONDS = 5;
/** Retry-After of a progress stream past a bound: until another of its streams has closed, likely. */
const STREAM_RETRY_SECONDS = 30;

export interface ScanPageOptions {
  readonly intake: Client<typeof IntakeService>;
  readonly limits: GuestLimits;
  readonly publicBaseUrl: string;
  readonly logger: Logger;
  /** The photo size bound (PHOTO_MAX_BYTES); core checks it again. */
  readonly maxBytes?: number;
  /** How often a quiet progress stream gets a keep-alive comment. */
  readonly keepAliveMs?: number;
  /** The process's readiness: progress streams end when it stops taking work. */
  readonly readiness?: Readiness;
  /** Bounds on open progress streams (DEFAULT_STREAM_BOUNDS by default; tests lower them). */
  readonly streamBounds?: StreamBounds;
}

interface Route {
  readonly method: 'GET' | 'POST';
  readonly pattern: RegExp;
  readonly handle: (ctx: Context, id: string) => Promise<void>;
  /** Answers an HTML page (a malformed id gets the 404 page rather than JSON). */
  readonly isPage?: boolean;
}

export function scanPages(options: ScanPageOptions) {
  const { intake, limits, logger } = options;
  const publicOrigin = new URL(options.publicBaseUrl).origin;
  const maxBytes = options.maxBytes ?? DEFAULT_PHOTO_MAX_BYTES;
  const slots = new StreamSlots(options.streamBounds);
  const relay = {
    intake,
    logger,
    keepAliveMs: options.keepAliveMs ?? KEEP_ALIVE_MS,
    refuse: refuseFor,
    slots,
    refuseSlot: (ctx: Context, refusal: StreamRefusal) =>
      refuse(ctx, 'rate_limited', STREAM_RETRY_SECONDS, streamBoundWords(refusal, slots.bounds)),
    readiness: options.readiness,
  };

  const routes: Route[] = [
    { method: 'GET', pattern: /^\/scan\/([^/]+)$/, handle: show, isPage: true },
    { method: 'GET', pattern: /^\/scan\/([^/]+)\/state$/, handle: currentState },
    { method: 'GET', pattern: /^\/scan\/([^/]+)\/challenge$/, handle: challenge },
    { method: 'POST', pattern: /^\/scan\/([^/]+)\/consent$/, handle: consent },
    { method: 'POST', pattern: /^\/scan\/([^/]+)\/photo$/, handle: photo },
    {
      method: 'GET',
      pattern: /^\/scan\/([^/]+)\/events$/,
      handle: (ctx, id) => relayEvents(relay, ctx, id, browserSecret(ctx)),
    },
    { method: 'POST', pattern: /^\/scan\/([^/]+)\/delete$/, handle: remove },
  ];

  async function show(ctx: Context, id: string) {
    let state: IntakeState | undefined;
    try {
      ({ state } = await intake.openPage({ runId: id, browserSecret: browserSecret(ctx) }));
    } catch (err) {
      if (errorReason(err) === 'not_found') return sendNotFound(ctx);
      logger.error({ err: (err as Error).message }, 'scan page: core call failed');
      const nonce = newNonce();
      return sendHtml(ctx, 503, unavailableHtml(nonce), nonce);
    }
    // Another browser's scan, as seen from a link tapped on another site (the person's web chat): such a
    // navigation carries no SameSite=Strict cookie, so the consenting browser looks like any other. Once
    // through a page of our own, and it sends its cookie; a browser without one still sees 'elsewhere'.
    if (state?.consented && !state.isConsentingBrowser && !browserSecret(ctx) && crossSiteNavigation(ctx)) {
      const nonce = newNonce();
      return sendHtml(ctx, 200, withNonce(bouncePage('Opening your scan', `/scan/${id}`), nonce), nonce);
    }
    if (!browserSecret(ctx)) {
      ctx.append(
        'Set-Cookie',
        pageCookie(COOKIE_CHECK, '1', state?.expiresAt && timestampDate(state.expiresAt)),
      );
    }
    const nonce = newNonce();
    const html = renderScanPage({
      runId: id,
      state: toPageState(state),
      consentVersion: CONSENT_VERSION,
      consentText: CONSENT_TEXT,
      maxBytes,
      nonce,
    });
    sendHtml(ctx, 200, html, nonce);
  }

  async function currentState(ctx: Context, id: string) {
    try {
      const { state } = await intake.openPage({ runId: id, browserSecret: browserSecret(ctx) });
      answer(ctx, 200, { state: toPageState(state) });
    } catch (err) {
      refuseFor(ctx, err);
    }
  }

  async function challenge(ctx: Context, id: string) {
    try {
      const { challengeJson } = await intake.createChallenge({ runId: id });
      setPageHeaders(ctx);
      ctx.type = 'json';
      ctx.body = challengeJson;
    } catch (err) {
      refuseFor(ctx, err);
    }
  }

  async function consent(ctx: Context, id: string) {
    const read = await readBody(ctx, CONSENT_BODY_LIMIT);
    if (!('text' in read)) return refuse(ctx, 'invalid_request');
    const body = parseConsent(read.text);
    if (!body) return refuse(ctx, 'invalid_request');
    // Nothing is recorded for a browser that would not keep the consent cookie (see COOKIE_CHECK).
    if (!keepsCookies(ctx)) return refuse(ctx, 'cookies_blocked');
    try {
      const consented = await intake.consent({ runId: id, ...body, browserSecret: browserSecret(ctx) });
      const state = consented.state;
      const expiresAt = state?.expiresAt && timestampDate(state.expiresAt);
      ctx.append('Set-Cookie', pageCookie(BROWSER_COOKIE, consented.browserSecret, expiresAt));
      answer(ctx, 200, { state: toPageState(state) });
    } catch (err) {
      refuseFor(ctx, err);
    }
  }

  async function photo(ctx: Context, id: string) {
    const wait = await limits.checkUpload(ctx.ip);
    if (wait !== undefined) {
      leaveUnread(ctx, maxBytes);
      return refuse(ctx, 'rate_limited', wait);
    }
    // Who may send a photo is known before a byte of it is read: others are refused without reading it.
    const closed = await uploadRefusal(ctx, id);
    if (closed) {
      leaveUnread(ctx, maxBytes);
      return closed === 'error' ? undefined : refuse(ctx, closed);
    }
    const read = await readPhoto(ctx, maxBytes);
    if (read.kind === 'aborted') return; // the browser went away: nobody to answer
    if (read.kind === 'too_large') return refuse(ctx, 'photo_too_large');
    try {
      const uploaded = await intake.uploadPhoto({
        runId: id,
        browserSecret: browserSecret(ctx),
        photo: read.photo,
      });
      answer(ctx, 202, { state: toPageState(uploaded.state) });
    } catch (err) {
      refuseFor(ctx, err);
    }
  }

  /** Why this browser may not send a photo now, by core's page state ('error': refusal already sent). */
  async function uploadRefusal(ctx: Context, id: string): Promise<RefusalReason | 'error' | undefined> {
    try {
      const { state } = await intake.openPage({ runId: id, browserSecret: browserSecret(ctx) });
      if (!state?.consented) return 'consent_required';
      if (!state.isConsentingBrowser) return 'not_consenting_browser';
      if (state.status === ScanStatus.COMPLETE) return 'upload_closed';
      return undefined;
    } catch (err) {
      refuseFor(ctx, err);
      return 'error';
    }
  }

  async function remove(ctx: Context, id: string) {
    try {
      await intake.deleteIntake({ runId: id, browserSecret: browserSecret(ctx) });
      // The cookie stays: it is the browser's one secret for every scan it consented to (it grants nothing
      // on the deleted one), and clearing it would take this browser's other scans away from it.
      answer(ctx, 200, { deleted: true });
    } catch (err) {
      refuseFor(ctx, err);
    }
  }

  function refuse(ctx: Context, reason: RefusalReason, waitSeconds?: number, message?: string) {
    if (waitSeconds !== undefined) ctx.set('Retry-After', String(waitSeconds));
    answer(ctx, REFUSALS[reason].status, {
      error: reason,
      message: message ?? refusalWords(reason, { maxBytes, waitSeconds }),
    });
  }

  /** A refusal from core in the page's words; anything that is not one is the service's fault. */
  function refuseFor(ctx: Context, err: unknown) {
    const reason = errorReason(err);
    if (reason === 'invalid_input') return refuse(ctx, 'invalid_request', undefined, CONSENT_OUTDATED_WORDS);
    if (reason === 'rate_limited') return refuse(ctx, 'rate_limited', retryAfter(err));
    if (reason && reason !== 'unavailable' && isRefusalReason(reason)) return refuse(ctx, reason);
    // Core holding as many watches as it may (GRPC_MAX_WATCHES): counted, not an error line per refusal.
    if (!reason && ConnectError.from(err).code === Code.ResourceExhausted) {
      pageStreamsRefused.inc({ bound: 'core' });
      return refuse(ctx, 'unavailable', UNAVAILABLE_RETRY_SECONDS);
    }
    logger.error(
      { err: (err as Error).message, path: routeTemplate(ctx.path) },
      'scan page: core call failed',
    );
    refuse(ctx, 'unavailable', UNAVAILABLE_RETRY_SECONDS);
  }

  return async (ctx: Context, next: () => Promise<void>) => {
    // HEAD is GET without the body (Koa leaves it out) for the page and its files, as HTTP requires: a link
    // checker or a chat app's preview asks with HEAD. Not for the JSON calls: the page's script never does.
    const head = ctx.method === 'HEAD';
    const asset = ASSET_PATH.exec(ctx.path);
    if (asset && (ctx.method === 'GET' || head)) return serveAsset(ctx, asset[2]!, asset[1]);
    // `/scan/:id/` is the page (as `/mcp/` is `/mcp`): redirected to it, not a bare "Not Found" the person
    // cannot act on. Any UUID alike, known or not (the page itself answers the one 404 page for unknown ids).
    const slashed = PAGE_WITH_SLASH.exec(ctx.path);
    if (slashed && (ctx.method === 'GET' || head)) {
      const id = slashed[1]!.toLowerCase();
      if (!UUID.test(id)) return sendNotFound(ctx);
      setPageHeaders(ctx);
      ctx.status = 308;
      ctx.set('Location', `/scan/${id}`);
      return;
    }
    for (const route of routes) {
      const m = route.pattern.exec(ctx.path);
      if (!m || (ctx.method !== route.method && !(head && route.isPage))) continue;
      // A run_id in any case, as the tools take it; one spelling from here on (core, the page's links).
      const id = m[1]!.toLowerCase();
      const isPhoto = route.handle === photo;
      const overBudget = await limits.checkRequest(ctx.ip);
      if (overBudget) {
        if (isPhoto) leaveUnread(ctx, maxBytes);
        const wait = overBudget.retryAfterSeconds ?? 1;
        if (!route.isPage) return refuse(ctx, 'rate_limited', wait, overBudget.message);
        ctx.set('Retry-After', String(wait));
        const nonce = newNonce();
        return sendHtml(ctx, 429, tooManyRequestsHtml(overBudget.message, nonce), nonce);
      }
      if (route.method === 'POST' && !fromThisOrigin(ctx, publicOrigin)) {
        if (isPhoto) leaveUnread(ctx, maxBytes);
        return refuse(ctx, 'forbidden_origin');
      }
      if (!UUID.test(id)) {
        if (isPhoto) leaveUnread(ctx, maxBytes);
        return route.isPage ? sendNotFound(ctx) : refuse(ctx, 'not_found');
      }
      return route.handle(ctx, id);
    }
    return next();
  };
}

function parseConsent(text: string): { consentVersion: string; challengeSolution: string } | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const { consent_version, challenge_solution = '' } = body as Record<string, unknown>;
  if (typeof consent_version !== 'string' || typeof challenge_solution !== 'string') return undefined;
  return { consentVersion: consent_version, challengeSolution: challenge_solution };
}

function retryAfter(err: unknown): number {
  const [info] = ConnectError.from(err).findDetails(ErrorInfoSchema);
  const seconds = Number(info?.metadata.retry_after_seconds);
  return Number.isInteger(seconds) && seconds > 0 ? seconds : 60;
}

function answer(ctx: Context, status: number, body: object) {
  setPageHeaders(ctx);
  ctx.status = status;
  ctx.body = body;
}

function sendNotFound(ctx: Context) {
  sendHtml(ctx, 404, SCAN_NOT_FOUND_HTML);
}

function sendHtml(ctx: Context, status: number, html: string, nonce?: string) {
  setPageHeaders(ctx, nonce);
  ctx.status = status;
  ctx.type = 'html';
  ctx.body = html;
}

function unavailableHtml(nonce: string): string {
  return withNonce(
    page('Something went wrong', '<p>The service cannot show this page just now. Try again in a minute.</p>'),
    nonce,
  );
}

function tooManyRequestsHtml(message: string, nonce: string): string {
  return withNonce(page('Too many requests', `<p>${escapeHtml(message)} Then reload this page.</p>`), nonce);
}

function withNonce(html: string, nonce: string): string {
  return html.replace('<style>', `<style nonce="${nonce}">`);
}
