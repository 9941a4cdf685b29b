/**
 * What the upload page's answers carry for the browser's protection: the page's strict CSP with a nonce
 * fresh for each response, no framing, no sniffing, no referrer (the URL holds the scan id), no caching;
 * the check that a POST comes from a page of this service's own origin; and the consent cookie the upload
 * page sets and the save page reads.
 */
import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { escapeHtml, page } from '../oauth/pages.ts';

/** The consent cookie: its value is the consenting browser's secret, of which core stores a keyed hash. */
export const BROWSER_COOKIE = '__Host-skinmatch-browser';

/**
 * A cookie with no secret in it, set with the page for a browser that has not consented: consent is taken
 * only from a browser that sent it back. A browser that keeps no cookies would otherwise bind the scan to a
 * consent cookie it threw away, and the link would be dead for everyone, the person included.
 */
export const COOKIE_CHECK = '__Host-skinmatch-cookies';

/** Whether this browser has shown that it keeps the page's cookies. */
export function keepsCookies(ctx: Context): boolean {
  return browserSecret(ctx) !== '' || ctx.cookies.get(COOKIE_CHECK) === '1';
}

/**
 * One of the page's cookies, written by hand: Koa refuses to set a Secure cookie on a plain-HTTP request,
 * which is what reaches the façade behind TLS termination (and what a browser accepts on http://localhost).
 * It lives no longer than the scan; an empty value with no expiry clears it.
 */
export function pageCookie(name: string, value: string, expiresAt?: Date): string {
  const seconds = expiresAt ? Math.max(0, Math.floor((expiresAt.getTime() - Date.now()) / 1000)) : undefined;
  const maxAge = value === '' ? '; Max-Age=0' : seconds === undefined ? '' : `; Max-Age=${seconds}`;
  return `${name}=${value}; Path=/${maxAge}; Secure; HttpOnly; SameSite=Strict`;
}

/** The consent cookie's value, or '' when the browser has none; core checks it. */
export function browserSecret(ctx: Context): string {
  return ctx.cookies.get(BROWSER_COOKIE) ?? '';
}

/** A CSP nonce for one response. */
export function newNonce(): string {
  return randomBytes(16).toString('base64');
}

/** The page's policy: its own files, its worker, and the nonce for anything inline it cannot avoid. */
export function pageCsp(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'self' 'nonce-${nonce}'`,
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' blob: data:",
    "connect-src 'self'",
    "worker-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The headers of every page and every JSON answer of the upload page. */
export function setPageHeaders(ctx: Context, nonce: string = newNonce()): void {
  ctx.set('Content-Security-Policy', pageCsp(nonce));
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cache-Control', 'no-store');
}

/**
 * Whether a POST comes from a page of this origin. A POST from a page whose referrer policy is no-referrer
 * may carry `Origin: null`; then the browser's own `Sec-Fetch-Site`, which no page can set, says whether it
 * was sent from this origin. No Origin at all is not a browser's request from our page: refused.
 */
export function fromThisOrigin(ctx: Context, publicOrigin: string): boolean {
  const origin = ctx.get('origin');
  return origin === publicOrigin || (origin === 'null' && ctx.get('sec-fetch-site') === 'same-origin');
}

/**
 * Whether a GET is a top-level navigation from a page of another site (a link in a web chat, opened in the
 * same tab or a new one): the browser sent none of our SameSite=Strict cookies with it, so the page cannot
 * tell the consenting browser from any other. The browser's own `Sec-Fetch-*` headers say so; no page can
 * set them. A typed URL, a bookmark or an app's link is `none` and carries the cookies.
 */
export function crossSiteNavigation(ctx: Context): boolean {
  return ctx.get('sec-fetch-site') === 'cross-site' && ctx.get('sec-fetch-mode') === 'navigate';
}

/**
 * A page of our own that moves on to `path` at once: that next request is same-origin, so the browser sends
 * its SameSite=Strict cookies with it. An HTTP redirect would not do (the chain still starts on the other
 * site). Sent once: the bounced request is same-origin and is never bounced again.
 */
export function bouncePage(title: string, path: string): string {
  const to = escapeHtml(path);
  return page(
    title,
    `<meta http-equiv="refresh" content="0;url=${to}"><p><a class="button" href="${to}">Continue</a></p>`,
  );
}
