/**
 * CORS for the MCP endpoints, for the browser origins an operator lists (MCP_ALLOWED_ORIGINS; none by
 * default). A browser-based MCP client on another origin (MCP Inspector in direct mode, a web IDE) sends a
 * preflight before its JSON POST: a listed origin gets 204 with the methods and headers an MCP client
 * sends; every answer to it (refusals, 401's challenge and 429's Retry-After included) names the origin and
 * exposes the headers the client reads, so it can follow the authorization discovery a 401 starts. No
 * credentials mode: no cookie rides on /mcp. Any other origin is refused before this (app.ts, DNS-rebinding
 * protection), as it always was.
 */
import type { Context, Next } from 'koa';

/** The MCP endpoints' paths, a trailing slash included (app.ts routes both). */
const MCP_PATHS = new Set(['/mcp', '/mcp/', '/mcp/account', '/mcp/account/']);

/** What an MCP client's POST carries beyond the CORS-safelisted headers. */
const ALLOWED_HEADERS =
  'content-type, accept, authorization, mcp-protocol-version, last-event-id, mcp-session-id';

/** The answer's headers a client reads: the 401's challenge, the 429's wait, the request's id. */
const EXPOSED_HEADERS = 'WWW-Authenticate, Retry-After, X-Request-Id';

/** Whether `origin` (an Origin header, possibly empty) is one the operator listed. */
export function corsOriginCheck(allowedOrigins: readonly string[]): (origin: string) => boolean {
  const listed = new Set(allowedOrigins);
  return (origin) => listed.has(origin);
}

export function mcpCors(allowedOrigins: readonly string[]) {
  const listed = corsOriginCheck(allowedOrigins);
  return async (ctx: Context, next: Next): Promise<void> => {
    const origin = ctx.get('origin');
    if (!MCP_PATHS.has(ctx.path) || !listed(origin)) return next();
    ctx.set('Access-Control-Allow-Origin', origin);
    ctx.vary('Origin');
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      ctx.set('Access-Control-Allow-Methods', 'POST');
      ctx.set('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      ctx.set('Access-Control-Max-Age', '3600');
      return;
    }
    ctx.set('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    await next();
  };
}
