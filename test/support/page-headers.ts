/** What every page a person sees must carry: a strict CSP, no framing, no sniffing, no referrer, no caching. */
import assert from 'node:assert/strict';

export function assertPageHeaders(headers: Headers | Record<string, string>): void {
  const get = (name: string) => (headers instanceof Headers ? headers.get(name) : headers[name]) ?? '';
  const csp = get('content-security-policy');
  assert.match(csp, /^default-src 'none'/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
  assert.equal(get('x-content-type-options'), 'nosniff');
  assert.equal(get('referrer-policy'), 'no-referrer');
  assert.equal(get('cache-control'), 'no-store');
}
