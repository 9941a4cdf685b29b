/**
 * What the logs say of a request's path: the route it matched, never the path itself. Paths carry scan
 * ids, interaction ids and whatever a client chooses to put there (a token pasted into a URL), so a log
 * line names `/scan/:id`, `/interaction/:uid/consent`… A path no route serves is logged as its first
 * segment only when that is one of ours (`/scan/…`), else as `/…`.
 */
import { RESOURCE_METADATA_PATH } from './oauth/endpoints.ts';

const FIXED = new Set([
  '/',
  '/mcp',
  '/mcp/',
  '/mcp/account',
  '/mcp/account/',
  '/health',
  '/ready',
  '/authorize',
  '/register',
  '/token',
  '/token/revoke',
  '/jwks',
  '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration',
  RESOURCE_METADATA_PATH,
]);

const TEMPLATES: readonly [RegExp, string][] = [
  [/^\/scan\/assets\/(?:[0-9a-f]{16}\/)?[^/]+$/, '/scan/assets/:file'],
  [/^\/scan\/[^/]+$/, '/scan/:id'],
  [/^\/scan\/[^/]+\/(state|challenge|consent|photo|events|delete)$/, '/scan/:id/$1'],
  [/^\/save\/[^/]+$/, '/save/:id'],
  [/^\/save\/[^/]+\/sign-in\/[^/]+$/, '/save/:id/sign-in/:provider'],
  [/^\/interaction\/[^/]+$/, '/interaction/:uid'],
  [/^\/interaction\/[^/]+\/upstream\/[^/]+$/, '/interaction/:uid/upstream/:provider'],
  [/^\/interaction\/[^/]+\/(signed-in|consent)$/, '/interaction/:uid/$1'],
  [/^\/oauth\/callback\/[^/]+$/, '/oauth/callback/:provider'],
];

/** First segments of our own routes: an unmatched path under one is logged as `/segment/…`. */
const OWN_SEGMENTS = new Set(['scan', 'save', 'interaction', 'oauth', 'mcp', 'token', '.well-known']);

/** The route template of a request path, for the logs. */
export function routeTemplate(path: string): string {
  if (FIXED.has(path)) return path;
  for (const [pattern, template] of TEMPLATES) {
    const m = pattern.exec(path);
    if (m) return template.replace('$1', m[1] ?? '');
  }
  const first = path.split('/')[1] ?? '';
  return OWN_SEGMENTS.has(first) ? `/${first}/…` : '/…';
}
