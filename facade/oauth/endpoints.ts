/**
 * The authorization server's HTTP surface around oidc-provider: RFC 8414 metadata at
 * `/.well-known/oauth-authorization-server` (revocation advertised at /token), RFC 9728 metadata for the
 * account endpoint, revocation requests to POST /token (a `token` without `grant_type`) routed to the
 * provider's revocation, a default scope for an authorization request that names none of ours
 * (defaultScope), the authorization response in the redirect's query only (queryModeOnly), and
 * registration bounded and counted per network (registration.ts). Bodies read here must be UTF-8. The
 * resource metadata and registration answer browsers of any origin, preflight included (oidc-provider
 * does so for its metadata and /token, not for /register): browser-based clients such as MCP Inspector
 * run discovery and registration from their own page, and no cookie or other ambient credential rides on
 * either. Everything else is oidc-provider's.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Context, Middleware } from 'koa';
import compose from 'koa-compose';
import type { Provider } from 'oidc-provider';
import getRawBody from 'raw-body';
import type { Logger } from '../../services/shared/logger.ts';
import { declaredTooLarge } from '../body.ts';
import type { GuestLimits } from '../rate-limits.ts';
import { CORE_RETRY_AFTER_S, coreOutageCode } from './core-outage.ts';
import { errorPage, pageHeaders, sendPage } from './pages.ts';
import { checkRegistration, MAX_REGISTRATION_BYTES, MAX_URI_CHARS } from './registration.ts';
import { ACCOUNT_RESOURCE_PATH, isScope, SCOPE_NAMES } from './scopes.ts';

const MAX_BODY_BYTES = 56 * 1024;
export const RESOURCE_METADATA_PATH = `/.well-known/oauth-protected-resource${ACCOUNT_RESOURCE_PATH}`;
/**
 * RFC 9728 §3.1 puts the metadata of `{base}/mcp/account` at RESOURCE_METADATA_PATH; clients that find no
 * `resource_metadata` in the challenge try it, then the root form (the MCP authorization spec, 2025-11-25),
 * where some clients look first. The account endpoint is this server's only protected
 * resource, so both answer its metadata.
 */
const RESOURCE_METADATA_PATHS = new Set([RESOURCE_METADATA_PATH, '/.well-known/oauth-protected-resource']);
const METADATA_PATHS = new Set([
  '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration',
]);

export function authorizationServer(
  provider: Provider,
  issuer: string,
  limits: Pick<GuestLimits, 'checkRegistration'>,
  logger: Logger,
): Middleware {
  const served = compose(provider.middleware) as Middleware;
  const resource = `${issuer}${ACCOUNT_RESOURCE_PATH}`;
  const resourceMetadata = {
    resource,
    authorization_servers: [issuer],
    scopes_supported: SCOPE_NAMES,
    bearer_methods_supported: ['header'],
    resource_name: 'skinmatch account endpoint',
  };

  return async (ctx, next) => {
    const metadataPath = RESOURCE_METADATA_PATHS.has(ctx.path);
    if (metadataPath || ctx.path === '/register') {
      const method = ctx.path === '/register' ? 'POST' : 'GET';
      if (ctx.method === 'OPTIONS') return preflight(ctx, method);
      ctx.set('Access-Control-Allow-Origin', '*');
      if (method === 'POST') ctx.set('Access-Control-Expose-Headers', 'Retry-After');
    }
    if (ctx.method === 'GET' && metadataPath) {
      ctx.body = resourceMetadata;
      return;
    }
    if (ctx.method === 'GET' && METADATA_PATHS.has(ctx.path)) {
      ctx.path = '/.well-known/openid-configuration';
      await served(ctx, next);
      if (ctx.status === 200) ctx.body = asMetadata(ctx.body as Record<string, unknown>, issuer);
      return;
    }
    if (ctx.path === '/authorize' || ctx.path.startsWith('/authorize/')) authorizationHeaders(ctx);
    if (ctx.path === '/authorize') {
      const problem = oversizedAuthorization(ctx.querystring);
      if (problem) return sendPage(ctx, 400, errorPage(400, 'invalid_request', problem));
      const query = canonicalResource(queryModeOnly(ctx.querystring), resource);
      if (query !== ctx.querystring) ctx.querystring = query;
    }
    if (ctx.method === 'GET' && ctx.path === '/authorize') await defaultScope(ctx, provider);
    if (ctx.method === 'POST' && ctx.path === '/token' && ctx.is('application/x-www-form-urlencoded')) {
      const body = await buffer(ctx);
      if (body === undefined) return;
      const form = new URLSearchParams(body);
      if (form.has('token') && !form.has('grant_type')) ctx.path = '/token/revoke';
      const canonical = canonicalResource(body, resource);
      if (canonical !== body) (ctx.req as IncomingMessage & { body?: string }).body = canonical;
    }
    if (ctx.method === 'POST' && ctx.path === '/register') {
      const wait = await limits.checkRegistration(ctx.ip);
      if (wait !== undefined) {
        return tooManyRequests(
          ctx,
          wait,
          `Too many client registrations from this network; wait ${wait} s before trying again.`,
        );
      }
      if (ctx.is('application/json')) {
        const body = await buffer(ctx, MAX_REGISTRATION_BYTES);
        if (body === undefined) return;
        const checked = checkRegistration(body);
        if ('problem' in checked) {
          ctx.status = 400;
          ctx.set('Cache-Control', 'no-store');
          ctx.body = checked.problem;
          return;
        }
        (ctx.req as IncomingMessage & { body?: string }).body = checked.body;
      }
    }
    await served(ctx, next);
    // Core, which keeps the server's records, could not be reached (core-outage.ts). One warning for each
    // answer, with the request's id (logger.ts), where the request line alone said nothing of why: the
    // endpoint only (`/authorize` of `/authorize/:uid`), never what the request carried, and core's code.
    if (ctx.status === 503) {
      ctx.set('Retry-After', String(CORE_RETRY_AFTER_S));
      ctx.set('Cache-Control', 'no-store');
      const endpoint = `/${ctx.path.split('/')[1] ?? ''}`;
      logger.warn(
        { method: ctx.method, path: endpoint, status: 503, core_code: coreOutageCode(ctx.state) },
        'authorization server: core unreachable',
      );
    }
  };
}

/**
 * An authorization request that names none of the account endpoint's scopes — `scope` left out, as RFC 6749
 * §3.3 allows, or only words of another server's — is given the default that section asks for: the
 * client's registered scope where it names ours, otherwise every scope. The consent page then shows the
 * person exactly these. Left as it was, oidc-provider let the person sign in and then answered
 * access_denied (nothing to grant), as if they had refused. An unknown client is left to oidc-provider.
 */
async function defaultScope(ctx: Context, provider: Provider): Promise<void> {
  const query = new URLSearchParams(ctx.querystring);
  const words = (query.get('scope') ?? '').split(' ').filter((word) => word !== '');
  if (words.some(isScope)) return;
  const client = await provider.Client.find(query.get('client_id') ?? '').catch(() => undefined);
  if (!client) return;
  const registered = String(client.scope ?? '')
    .split(' ')
    .filter(isScope);
  query.set('scope', [...words, ...(registered.length > 0 ? registered : SCOPE_NAMES)].join(' '));
  ctx.querystring = query.toString();
}

/**
 * An authorization request is stored as an interaction before anyone signs in (INTERACTION_TTL_S), so its
 * size is bounded, not only the number of requests a network may send (the request budget): a 15 KB
 * `state` was kept, about 530 MB a network an hour. Real requests are far smaller: a random `state` and
 * `nonce` (tens of characters), a 43-character PKCE challenge (oidc-provider allows 43 to 128), a
 * registered redirect URI (at most MAX_URI_CHARS, registration.ts). Over a bound, a 400 page, as for an
 * unknown client or redirect URI: nobody is redirected to a URI not yet checked against the client.
 */
const MAX_AUTHORIZE_QUERY_BYTES = 4096;
const MAX_AUTHORIZE_PARAMETER_CHARS = 1024;

/** Why an authorization request's query is too large, or undefined. */
function oversizedAuthorization(querystring: string): string | undefined {
  if (Buffer.byteLength(querystring) > MAX_AUTHORIZE_QUERY_BYTES) {
    return `the authorization request must be at most ${MAX_AUTHORIZE_QUERY_BYTES} bytes`;
  }
  for (const [name, value] of new URLSearchParams(querystring)) {
    const max = name === 'redirect_uri' ? MAX_URI_CHARS : MAX_AUTHORIZE_PARAMETER_CHARS;
    if (value.length > max) return `${name.slice(0, 40)} must be at most ${max} characters`;
  }
  return undefined;
}

/**
 * The authorization response goes back in the redirect's query only (OAuth 2.1 §4.1.2; MCP clients use
 * nothing else). oidc-provider also offers `form_post` and `fragment` and has no setting to turn them off,
 * so a request naming any other mode has it replaced by one oidc-provider does not know: it answers
 * `unsupported_response_mode`, in the query, once the client and redirect URI are checked (a 400 page
 * before that), and nobody signs in. (/authorize takes GET only: oidc-provider's POST is off.)
 */
function queryModeOnly(query: string): string {
  const params = new URLSearchParams(query);
  const modes = params.getAll('response_mode');
  if (modes.every((mode) => mode === 'query')) return query;
  params.delete('response_mode');
  for (const mode of modes) params.append('response_mode', mode === 'query' ? mode : 'unsupported');
  return params.toString();
}

/**
 * `{base}/mcp/account/`, with the trailing slash, names the same endpoint as `{base}/mcp/account` (both are
 * served alike), and clients configured with it send it as their `resource` (RFC 8707). It is replaced by
 * the canonical form, the one the tokens' audience names, in an authorization or token request; any other
 * resource is oidc-provider's to refuse (invalid_target).
 */
function canonicalResource(form: string, resource: string): string {
  const params = new URLSearchParams(form);
  const named = params.getAll('resource');
  if (!named.includes(`${resource}/`)) return form;
  params.delete('resource');
  for (const value of named) params.append('resource', value === `${resource}/` ? resource : value);
  return params.toString();
}

/**
 * The headers of every page a person sees (pages.ts), on every answer to an authorization request, for any
 * page of oidc-provider's own (form_post's auto-submitting form, were it ever rendered: its inline script is
 * allowed by the hash oidc-provider adds to a `script-src` it finds; the nonce allows nothing). Pages of
 * ours (sendPage) set their own policy over this one.
 */
function authorizationHeaders(ctx: Context): void {
  pageHeaders(ctx, `script-src 'nonce-${randomBytes(16).toString('base64')}'`);
}

/** A CORS preflight for an open route: any origin, the headers it asks for, no credentials. */
function preflight(ctx: Context, method: string): void {
  ctx.status = 204;
  ctx.set('Access-Control-Allow-Origin', '*');
  ctx.set('Access-Control-Allow-Methods', method);
  const asked = ctx.get('access-control-request-headers');
  if (asked) ctx.set('Access-Control-Allow-Headers', asked);
  ctx.set('Access-Control-Max-Age', '3600');
  ctx.vary('Access-Control-Request-Headers');
}

/** HTTP 429 in the authorization server's error shape (RFC 6749 §5.2's fields), with Retry-After. */
export function tooManyRequests(ctx: Context, waitSeconds: number, description: string) {
  ctx.status = 429;
  ctx.set('Retry-After', String(waitSeconds));
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error: 'rate_limited', error_description: description };
}

function asMetadata(discovery: Record<string, unknown>, issuer: string): Record<string, unknown> {
  return {
    ...discovery,
    revocation_endpoint: `${issuer}/token`,
    // Revocation takes the same client authentication as the token endpoint (RFC 8414 would otherwise
    // default to client_secret_basic alone, and a public client revokes with its client_id).
    revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    scopes_supported: [...SCOPE_NAMES, 'openid', 'offline_access'],
    code_challenge_methods_supported: ['S256'],
    response_types_supported: ['code'],
    // oidc-provider lists form_post and fragment, which are refused (queryModeOnly).
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
  };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Reads the body for inspection and leaves it where oidc-provider's parser takes an already-read body. */
async function buffer(ctx: Context, limit = MAX_BODY_BYTES): Promise<string | undefined> {
  try {
    if (declaredTooLarge(ctx, limit)) throw new Error('body too large');
    const text = utf8.decode(await getRawBody(ctx.req, { limit }));
    (ctx.req as IncomingMessage & { body?: string }).body = text;
    return text;
  } catch {
    ctx.status = 400;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      error: 'invalid_request',
      error_description: 'unreadable, too large or not UTF-8 request body',
    };
    return undefined;
  }
}
