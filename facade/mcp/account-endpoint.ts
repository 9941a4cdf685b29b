/**
 * POST /mcp/account: the same stateless JSON-RPC endpoint as /mcp, behind a bearer token. Without a valid
 * one → HTTP 401 with `WWW-Authenticate: Bearer resource_metadata="…", scope="…"` (RFC 9728; the scope the
 * endpoint's tools need, which MCP asks servers to name so a client asks for no less), so that an MCP client
 * can find the authorization server — with `error="invalid_token"` only when a bearer token was sent (none,
 * or another scheme such as Basic, carries no error code: RFC 6750 §3.1). Requests refused so count against
 * the network's request budget (over it: HTTP 429, endpoint.ts); signed-in ones count per account; a tool call whose scope the token lacks → HTTP 403 with
 * `error="insufficient_scope"`. The verified account travels with the request as the SDK's `authInfo`.
 * A token that cannot be checked (core, which holds grants and accounts, does not answer) is the service's
 * fault, not the caller's: HTTP 503 with Retry-After and a JSON-RPC error with the tools' `unavailable` code
 * in `data`, logged once (it was an HTTP 500 whose body no MCP client reads as JSON-RPC); it counts as a
 * refusal does.
 */
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Context } from 'koa';
import type { Logger } from '../../services/shared/logger.ts';
import { SCOPE_NAMES } from '../oauth/scopes.ts';
import type { GuestLimits } from '../rate-limits.ts';
import type { BearerVerifier } from './bearer.ts';
import { type Refusal, tooManyRequests } from './endpoint.ts';
import type { ToolDefinition } from './tool-definition.ts';
import { unavailable } from './tool-errors.ts';

export interface AccountEndpointOptions {
  readonly verifier: BearerVerifier;
  readonly tools: readonly ToolDefinition[];
  /** Absolute URL of the protected-resource metadata. */
  readonly resourceMetadataUrl: string;
  /** The request budget that requests without a valid bearer spend per network. */
  readonly limits: Pick<GuestLimits, 'checkRequest'>;
  /** The /mcp endpoint's handler, given the account in `ctx.state.authInfo` and a scope check. */
  readonly serve: (ctx: Context, refuse: Refusal) => Promise<void>;
  readonly logger: Logger;
}

export function accountEndpoint(options: AccountEndpointOptions) {
  const scopeOf = new Map(options.tools.map((tool) => [tool.name, tool.scope]));
  const challenge = (params: string) => `Bearer resource_metadata="${options.resourceMetadataUrl}"${params}`;
  const toolScopes = SCOPE_NAMES.filter((scope) => options.tools.some((tool) => tool.scope === scope)).join(
    ' ',
  );

  const refuse: Refusal = (ctx, request, reply) => {
    if (request.method !== 'tools/call') return false;
    const needed = scopeOf.get(String(request.params?.name));
    const granted = (ctx.state.authInfo as AuthInfo).scopes;
    if (!needed || granted.includes(needed)) return false;
    reply.status = 403;
    reply.set('WWW-Authenticate', challenge(`, error="insufficient_scope", scope="${needed}"`));
    reply.body = {
      jsonrpc: '2.0',
      id: request.id,
      error: {
        code: -32001,
        message: `This tool needs the ${needed} scope, which the token does not grant.`,
      },
    };
    return true;
  };

  return async (ctx: Context): Promise<void> => {
    ctx.set('Cache-Control', 'no-store'); // as every MCP answer (endpoint.ts), refusals included
    const check = await options.verifier
      .check(ctx.get('authorization') || undefined)
      .catch((err: unknown): undefined => {
        const message = err instanceof Error ? err.message : String(err);
        options.logger.error({ err: message }, 'token not checked: core did not answer');
      });
    if (!check?.ok) {
      const overBudget = await options.limits.checkRequest(ctx.ip);
      if (overBudget) return tooManyRequests(ctx, overBudget);
      if (!check) return unverifiable(ctx);
      ctx.status = 401;
      ctx.set(
        'WWW-Authenticate',
        challenge(
          `, scope="${toolScopes}"${
            check.reason === 'invalid'
              ? ', error="invalid_token", error_description="The token is not valid."'
              : ''
          }`,
        ),
      );
      ctx.body = {
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32001,
          message: 'A valid bearer token is required; sign in through the authorization server.',
        },
      };
      return;
    }
    const { bearer } = check;
    const authInfo: AuthInfo = {
      token: bearer.token,
      clientId: bearer.clientId,
      scopes: [...bearer.scopes],
      expiresAt: bearer.expiresAt,
      extra: { accountId: bearer.accountId },
    };
    ctx.state.authInfo = authInfo;
    await options.serve(ctx, refuse);
  };
}

/** A bearer that could not be checked: HTTP 503, and the `unavailable` an agent gets for any fault. */
function unverifiable(ctx: Context): void {
  const fault = unavailable(String(ctx.state.requestId));
  const wait = fault.retryAfterSeconds ?? 1;
  ctx.status = 503;
  ctx.set('Retry-After', String(wait));
  ctx.body = {
    jsonrpc: '2.0',
    id: null,
    error: { code: -32603, message: fault.message, data: { code: fault.code, retry_after_seconds: wait } },
  };
}
