/**
 * Dynamic client registration (RFC 7591) is open to anyone, so what a client may register is bounded
 * before oidc-provider sees it:
 * - redirect URIs are https, a native application's private-use scheme, or http on a loopback host only
 *   (OAuth 2.1 §2.3.1 and the MCP authorization spec: a code must never travel in clear over the network;
 *   oidc-provider refuses javascript:, data:, file: and the like), without user information, whitespace or
 *   control characters (a URI that is not what it looks like), at most 2,000 characters and 10 of them;
 * - the client's name, shown to the person on the sign-in and consent pages, is at most 100 characters
 *   with no control or invisible formatting characters (a right-to-left override reverses what a person
 *   reads), and other text values at most 2,000 characters;
 * - the body at most 16 KiB, and registrations per network are counted against an hourly budget
 *   (facade/rate-limits.ts) so that nobody fills the store with clients.
 * Every client is registered as `application_type: native` (unless it names https on a loopback host,
 * which oidc-provider allows web clients only): its redirect URIs may then use a private-use scheme
 * (`cursor://…`, `vscode://…`, RFC 8252 §7.1). At /authorize a redirect URI must still equal a registered
 * one exactly, as the spec says — the loopback port included, which oidc-provider would leave free for a
 * native client (RFC 8252 §7.3; provider.ts keeps it exact) — and the token request's must equal the
 * authorization request's. A `scope` keeps only the words this server knows
 * (RFC 7591 §2 lets the server register another scope than asked, and /authorize drops unknown words
 * too): `openid profile email` was refused whole, so such a client could not connect at all; a scope left
 * empty is left out (authorize then defaults it: endpoints.ts). `response_modes` may name only `query`
 * (endpoints.ts refuses the others). Everything else is oidc-provider's to check.
 */
import { SCOPE_NAMES } from './scopes.ts';

export const MAX_REGISTRATION_BYTES = 16 * 1024;
const MAX_REDIRECT_URIS = 10;
export const MAX_URI_CHARS = 2000;
const MAX_NAME_CHARS = 100;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const KNOWN_SCOPES = new Set<string>([...SCOPE_NAMES, 'openid', 'offline_access']);
// C0 and C1 controls, whitespace, and the invisible format characters (bidi overrides, zero widths).
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
const UNSAFE_IN_URI = /[\p{Cc}\p{Cf}\p{Z}\s]/u;

export interface RegistrationProblem {
  readonly error: 'invalid_redirect_uri' | 'invalid_client_metadata';
  readonly error_description: string;
}

export type RegistrationCheck = { readonly body: string } | { readonly problem: RegistrationProblem };

/** The body oidc-provider should see (forced to a web client), or why the registration is refused. */
export function checkRegistration(text: string): RegistrationCheck {
  let metadata: unknown;
  try {
    metadata = JSON.parse(text);
  } catch {
    return { body: text }; // not JSON: oidc-provider answers it with its own invalid_request
  }
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return { body: text };
  const fields = metadata as Record<string, unknown>;
  const problem = redirectProblem(fields.redirect_uris) ?? textProblem(fields);
  if (problem) return { problem };
  return { body: JSON.stringify({ ...knownScope(fields), application_type: applicationType(fields) }) };
}

/** `web` for a client that names https on a loopback host (native may not), `native` otherwise. */
function applicationType(fields: Record<string, unknown>): 'web' | 'native' {
  const uris = Array.isArray(fields.redirect_uris) ? fields.redirect_uris : [];
  const httpsLoopback = uris.some((uri) => {
    const url = typeof uri === 'string' ? URL.parse(uri) : null;
    return url?.protocol === 'https:' && LOOPBACK_HOSTS.has(url.hostname);
  });
  return httpsLoopback ? 'web' : 'native';
}

function knownScope(fields: Record<string, unknown>): Record<string, unknown> {
  if (typeof fields.scope !== 'string') return fields; // not a string: oidc-provider refuses it
  const { scope, ...rest } = fields;
  const known = [...new Set(scope.split(' ').filter((word) => KNOWN_SCOPES.has(word)))];
  return known.length > 0 ? { ...rest, scope: known.join(' ') } : rest;
}

function redirectProblem(uris: unknown): RegistrationProblem | undefined {
  if (!Array.isArray(uris)) return undefined; // missing or not an array: oidc-provider's own answer
  const refuse = (why: string): RegistrationProblem => ({
    error: 'invalid_redirect_uri',
    error_description: why,
  });
  if (uris.length > MAX_REDIRECT_URIS) return refuse(`at most ${MAX_REDIRECT_URIS} redirect_uris`);
  for (const uri of uris) {
    if (typeof uri !== 'string') continue; // oidc-provider refuses it
    if (uri.length > MAX_URI_CHARS)
      return refuse(`redirect_uris must be at most ${MAX_URI_CHARS} characters`);
    if (UNSAFE_IN_URI.test(uri))
      return refuse('redirect_uris must not contain whitespace or control characters');
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      continue; // not a URI: oidc-provider refuses it
    }
    if (url.username !== '' || url.password !== '')
      return refuse('redirect_uris must not contain user information');
    if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) {
      return refuse(
        'redirect_uris must use https, or http on a loopback address (localhost, 127.0.0.1, [::1])',
      );
    }
  }
  return undefined;
}

function textProblem(fields: Record<string, unknown>): RegistrationProblem | undefined {
  const refuse = (why: string): RegistrationProblem => ({
    error: 'invalid_client_metadata',
    error_description: why,
  });
  const modes = fields.response_modes;
  if (Array.isArray(modes) && modes.some((mode) => mode !== 'query')) {
    return refuse('response_modes: only query is supported');
  }
  const name = fields.client_name;
  if (typeof name === 'string') {
    if ([...name].length > MAX_NAME_CHARS)
      return refuse(`client_name must be at most ${MAX_NAME_CHARS} characters`);
    if (HIDDEN.test(name))
      return refuse('client_name must not contain control or invisible formatting characters');
  }
  for (const [key, value] of Object.entries(fields)) {
    const values = Array.isArray(value) ? value : [value];
    if (values.some((v) => typeof v === 'string' && v.length > MAX_URI_CHARS)) {
      return refuse(`${key} must be at most ${MAX_URI_CHARS} characters`);
    }
  }
  return undefined;
}
