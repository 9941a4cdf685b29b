/**
 * The sign-in pages a person sees: choosing an identity provider, approving scopes, and errors. Plain
 * HTML with no script; every value is escaped. The headers (strict CSP, no referrer, no caching) are set
 * by `sendPage`, for every page including oidc-provider's error pages.
 */
import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';

/**
 * Borders and padding inside each box's width (a full-width button otherwise overflowed the screen by its
 * border and padding: the page scrolled sideways on a phone); the same visible focus ring as the upload page.
 */
const STYLE =
  '*{box-sizing:border-box}' +
  'body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;line-height:1.5}' +
  'a.button,button{display:block;width:100%;margin:.5rem 0;padding:.7rem;font-size:1rem;text-align:center;' +
  'border:1px solid #888;border-radius:.4rem;background:#f4f4f4;color:#111;text-decoration:none;cursor:pointer}' +
  'button.primary{background:#1d4ed8;color:#fff;border-color:#1d4ed8}li{margin:.3rem 0}' +
  'a:focus-visible,button:focus-visible{outline:3px solid #b45309;outline-offset:2px}';

export function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

export function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>
<style>${STYLE}</style></head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
}

/**
 * Sends a page with the headers every page of the person's carries: a CSP that allows nothing but the
 * page's own inline style (by a nonce fresh for each response), no framing, no referrer, no caching.
 */
export function sendPage(ctx: Context, status: number, html: string): void {
  const nonce = randomBytes(16).toString('base64');
  ctx.status = status;
  ctx.type = 'html';
  pageHeaders(ctx, `style-src 'nonce-${nonce}'`);
  ctx.body = html.replace('<style>', `<style nonce="${nonce}">`);
}

/**
 * What a person reads on an error page first, in words: a refused authorization request (a redirect URI not
 * registered, an unknown client) names only OAuth's terms, which say nothing to the person who followed the
 * app's link. The code and its description follow, for the app's makers.
 */
export const ERROR_ADVICE = {
  refused:
    'You were not signed in and nothing was shared. Go back to the app you came from and start again; ' +
    'if this page comes back, show the app’s makers the details below.',
  failed:
    'skinmatch could not finish this just now. Nothing was shared. Wait a minute, then start again from your app.',
};

export function errorPage(status: number, error: string, description: string): string {
  const advice = status >= 500 ? ERROR_ADVICE.failed : ERROR_ADVICE.refused;
  return page(
    status >= 500 ? 'Something went wrong' : 'This request cannot be completed',
    `<p id="advice">${escapeHtml(advice)}</p><h2>Details for the app’s makers</h2>` +
      `<p id="error">${escapeHtml(error)}</p><p id="description">${escapeHtml(description)}</p>`,
  );
}

/** A page that tells the person what happened in words (no error code) and where they can go from here. */
export function noticePage(
  title: string,
  text: string,
  links: readonly { href: string; name: string }[],
): string {
  const buttons = links
    .map((l) => `<a class="button" href="${escapeHtml(l.href)}">${escapeHtml(l.name)}</a>`)
    .join('');
  return page(title, `<p id="description">${escapeHtml(text)}</p>${buttons}`);
}

export function providerChoicePage(
  clientName: string,
  providers: readonly { href: string; name: string }[],
): string {
  const links = providers
    .map((p) => `<a class="button" href="${escapeHtml(p.href)}">Continue with ${escapeHtml(p.name)}</a>`)
    .join('');
  return page(
    'Sign in to skinmatch',
    `<p><strong>${escapeHtml(clientName)}</strong> asks to use skinmatch on your behalf. ` +
      `Sign in with one of these accounts:</p>${links}`,
  );
}

/**
 * The consent page. Anyone may register a client under any name, so the page also names the host the
 * person's approval is sent to — the one thing a look-alike client cannot borrow from the one it imitates.
 */
export function consentPage(
  clientName: string,
  returnHost: string,
  action: string,
  scopes: readonly string[],
): string {
  const items = scopes.map((s) => `<li>${escapeHtml(s)}</li>`).join('');
  return page(
    'Allow access?',
    `<p><strong>${escapeHtml(clientName)}</strong> asks to:</p><ul id="scopes">${items}</ul>` +
      `<p id="return">If you allow, you go back to <strong>${escapeHtml(returnHost)}</strong>, which gets this access. ` +
      'The name above is what the application calls itself.</p>' +
      `<form method="post" action="${escapeHtml(action)}">` +
      '<button class="primary" name="decision" value="approve" type="submit">Allow</button>' +
      '<button name="decision" value="decline" type="submit">Decline</button></form>',
  );
}

/**
 * The headers of every page a person sees: a CSP that allows nothing but `allowed` (one fetch directive, such
 * as a nonce's `style-src`), no framing, no referrer, no caching, no sniffing.
 */
export function pageHeaders(ctx: Context, allowed: string): void {
  ctx.set(
    'Content-Security-Policy',
    `default-src 'none'; ${allowed}; base-uri 'none'; frame-ancestors 'none'`,
  );
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cache-Control', 'no-store');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
}
