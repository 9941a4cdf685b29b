/**
 * The headers every answer of the façade carries, set before any route runs: a route with a page of its own
 * (the upload, save and sign-in pages) writes its own policy over them, and whatever no route answers (the
 * default 404 of `/`, a mistyped path, a refusal by a middleware) still cannot be framed, sniffed into HTML,
 * run anything, or hand its URL on as a Referer. Behind TLS — PUBLIC_BASE_URL https, or a request the
 * trusted proxy says came over https — browsers are also told to use https only (HSTS), so that a link typed
 * or pasted as http:// is never sent in the clear again; HSTS over plain http is ignored by browsers.
 */
import type { Middleware } from 'koa';

/** A year: the value browsers' preload lists and the common scanners expect. */
const HSTS = 'max-age=31536000';

/** Nothing runs, nothing loads, nothing frames: for answers that are not one of our pages. */
export const DEFAULT_CSP = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export function securityHeaders(publicBaseUrl: string): Middleware {
  const https = new URL(publicBaseUrl).protocol === 'https:';
  return async (ctx, next) => {
    ctx.set('Content-Security-Policy', DEFAULT_CSP);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Referrer-Policy', 'no-referrer');
    if (https || ctx.secure) ctx.set('Strict-Transport-Security', HSTS);
    await next();
  };
}
