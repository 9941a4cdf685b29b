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
 *
 * No page may use the device or the browser's powerful features (Permissions-Policy), except that the upload
 * page may use the camera, from its own origin only: it takes the selfie. It does so through the file input's
 * `capture`, which browsers do not gate on this policy today; one that did would break the one thing the page
 * is for, and `self` is the camera's default allow-list, so the page gains nothing by it. No other site may
 * embed an answer (Cross-Origin-Resource-Policy; requests made with CORS, as discovery's, are not affected),
 * and a page opened from another site's window shares no browsing context group with it
 * (Cross-Origin-Opener-Policy), except along the authorization flow: a web client may open `/authorize` in a
 * popup and hear back from its own redirect page through `window.opener`, which a COOP document or redirect
 * anywhere in the chain (our sign-in pages, the upstream callback) would cut.
 */
import type { Context, Middleware } from 'koa';

/** A year: the value browsers' preload lists and the common scanners expect. */
const HSTS = 'max-age=31536000';

/** Nothing runs, nothing loads, nothing frames: for answers that are not one of our pages. */
export const DEFAULT_CSP = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The powerful features no page of ours uses (each one Chromium knows: an unknown one is a console error). */
const DENIED_FEATURES = [
  'accelerometer',
  'display-capture',
  'fullscreen',
  'geolocation',
  'gyroscope',
  'hid',
  'idle-detection',
  'magnetometer',
  'microphone',
  'midi',
  'payment',
  'publickey-credentials-get',
  'screen-wake-lock',
  'serial',
  'usb',
  'xr-spatial-tracking',
].map((feature) => `${feature}=()`);

/** Everything denied, the camera too. */
export const DENY_ALL_FEATURES = ['camera=()', ...DENIED_FEATURES].join(', ');

/** The upload page's: the camera from its own origin, nothing else. */
export const UPLOAD_PAGE_FEATURES = ['camera=(self)', ...DENIED_FEATURES].join(', ');

/** The upload page's path, `/scan/:id` (its assets and JSON answers are no documents: no camera). */
const UPLOAD_PAGE = /^\/scan\/[^/]+$/;

/** The paths of the authorization flow, which a popup may walk through (no COOP there, see above). */
const AUTHORIZATION_FLOW = /^\/(authorize|interaction|oauth\/callback)(\/|$)/;

export function securityHeaders(publicBaseUrl: string): Middleware {
  const https = new URL(publicBaseUrl).protocol === 'https:';
  return async (ctx, next) => {
    ctx.set('Content-Security-Policy', DEFAULT_CSP);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('Permissions-Policy', UPLOAD_PAGE.test(ctx.path) ? UPLOAD_PAGE_FEATURES : DENY_ALL_FEATURES);
    ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
    if (!AUTHORIZATION_FLOW.test(ctx.path)) ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
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
