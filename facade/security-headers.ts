/**
 * The headers every answer of the façade carries, set before any route runs: a route with a page of its own
 * (the upload, save and sign-in pages) writes its own policy over them, and whatever no route answers (the
 * default 404 of `/`, a mistyped path, a refusal by a middleware) still cannot be framed, sniffed into HTML,
 * run anything, or hand its URL on as a Referer. Behind TLS — PUBLIC_BASE_URL https, or a request the
 * trusted proxy says came over https — browsers are also told to use https only (HSTS), so that a link typed
 * or pasted as http:// is never sent in the clear again; HSTS over plain http is ignored by browsers.
 *
 * Behind TLS every cookie is also Secure. oidc-provider marks its own (its session cookie, the person's sign-in session
 * at the authorization server for a day, and the interaction's) Secure only when the request itself looks like
 * https, which it does not where TLS ends at a proxy the façade does not trust (TRUST_PROXY unset, the chart's
 * default): the session id then went back over plain http to anyone who could make the browser ask for one.
 * A cookie named `__Host-` or `__Secure-` (provider.ts names oidc-provider's so) is Secure always: browsers
 * keep it only so, and they take Secure cookies from http://localhost, where development runs.
 */
import type { Context, Middleware } from 'koa';

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
    if (!ctx.headerSent) secureCookies(ctx, https);
  };
}

/** The answer's cookies Secure: all of them behind TLS, else the prefixed ones (those already so left as are). */
function secureCookies(ctx: Context, all: boolean): void {
  const cookies = ctx.response.get('Set-Cookie') as unknown as string[] | string;
  if (!cookies || cookies.length === 0) return;
  const list = Array.isArray(cookies) ? cookies : [cookies];
  ctx.set(
    'Set-Cookie',
    list.map((cookie) =>
      (!all && !/^__(Host|Secure)-/.test(cookie)) || /;\s*secure\s*(;|$)/i.test(cookie)
        ? cookie
        : `${cookie}; secure`,
    ),
  );
}
