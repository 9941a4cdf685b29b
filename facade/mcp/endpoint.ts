/**
 * POST /mcp (and /mcp/account later): the Streamable HTTP transport's rules for a stateless server that
 * answers in JSON. No session, no initialize needed before tools/call. Bodies are bounded, malformed JSON
 * gets JSON-RPC -32700, other methods get 405. Tool calls over the network's rate limit are answered here
 * with a `rate_limited` tool error, before any work is done.
 */
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type {
  JSONRPCNotification,
  JSONRPCRequest,
  MessageExtraInfo,
} from '@modelcontextprotocol/sdk/types.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { Context } from 'koa';
import getRawBody from 'raw-body';
import type { GuestLimits } from '../rate-limits.ts';
import type { RequestMultiplexer } from './multiplexer.ts';
import { errorResult } from './tool-errors.ts';

export const MAX_BODY_BYTES = 64 * 1024;

/** Answers a request itself instead of serving it (e.g. a scope the bearer lacks); true when it did. */
export type Refusal = (ctx: Context, request: JSONRPCRequest) => boolean;

export function mcpEndpoint(mux: RequestMultiplexer, limits: GuestLimits) {
  return async (ctx: Context, refuse?: Refusal): Promise<void> => {
    if (ctx.method !== 'POST') {
      ctx.set('Allow', 'POST');
      return reject(ctx, 405, -32000, 'Method not allowed: this stateless server takes POST only.');
    }
    if (!ctx.is('application/json'))
      return reject(ctx, 415, -32000, 'Content-Type must be application/json.');
    if (!acceptsBoth(ctx.get('accept'))) {
      return reject(ctx, 406, -32000, 'Accept must include application/json and text/event-stream.');
    }
    const version = ctx.get('mcp-protocol-version');
    if (version && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      return reject(ctx, 400, -32000, `Unsupported MCP-Protocol-Version: ${version}.`);
    }
    let text: string;
    try {
      text = await getRawBody(ctx.req, { limit: MAX_BODY_BYTES, encoding: 'utf8' });
    } catch (err) {
      const status = (err as { status?: number }).status === 413 ? 413 : 400;
      return reject(
        ctx,
        status,
        -32600,
        status === 413 ? 'Request body too large.' : 'Unreadable request body.',
      );
    }
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return reject(ctx, 400, -32700, 'Parse error: the body is not valid JSON.');
    }
    // On /mcp/account the verified account (set by account-endpoint.ts) reaches the tools as authInfo,
    // and limits count per account instead of per network.
    const authInfo = ctx.state.authInfo as AuthInfo | undefined;
    const extra: MessageExtraInfo = { requestInfo: { headers: ctx.headers }, authInfo };
    const kind = envelope(message);
    if (kind === 'request') {
      const request = message as JSONRPCRequest;
      if (refuse?.(ctx, request)) return;
      if (request.method === 'tools/call') {
        const limitKey = authInfo ? `account:${String(authInfo.extra?.accountId)}` : ctx.ip;
        const refusal = await limits.check(String(request.params?.name), limitKey);
        if (refusal) {
          ctx.body = { jsonrpc: '2.0', id: request.id, result: errorResult(refusal) };
          return;
        }
      }
      ctx.body = await mux.request(request, extra);
      return;
    }
    if (kind === 'notification' || kind === 'response') {
      if (kind === 'notification') mux.notify(message as JSONRPCNotification, extra);
      ctx.status = 202;
      return;
    }
    return reject(ctx, 400, -32600, 'Invalid Request: expected one JSON-RPC 2.0 request object.');
  };
}

/**
 * The JSON-RPC 2.0 envelope, checked by shape only: the SDK's server validates every message fully, and a
 * message let through here must be one it will route, or its HTTP request would wait for an answer that
 * never comes.
 */
function envelope(message: unknown): 'request' | 'notification' | 'response' | undefined {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return undefined;
  const m = message as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') return undefined;
  const params = m.params;
  const paramsOk =
    params === undefined || (typeof params === 'object' && params !== null && !Array.isArray(params));
  const idOk = typeof m.id === 'string' || (typeof m.id === 'number' && Number.isInteger(m.id));
  if (typeof m.method === 'string') {
    if (!paramsOk) return undefined;
    if (idOk) return 'request';
    return 'id' in m ? undefined : 'notification';
  }
  return idOk && ('result' in m || 'error' in m) ? 'response' : undefined;
}

function acceptsBoth(accept: string): boolean {
  return accept.includes('application/json') && accept.includes('text/event-stream');
}

function reject(ctx: Context, status: number, code: number, message: string): void {
  ctx.status = status;
  ctx.body = { jsonrpc: '2.0', id: null, error: { code, message } };
}
