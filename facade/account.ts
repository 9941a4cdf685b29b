/**
 * Everything signed-in in the façade: the authorization server (oidc-provider and its sign-in pages,
 * federated to the upstream providers) and the /mcp/account endpoint with its own long-lived MCP server
 * behind its own request multiplexer.
 */
import { createClient, type Transport } from '@connectrpc/connect';
import type { Middleware } from 'koa';
import { AccountService } from '../gen/skinmatch/v1/account_pb.ts';
import { CatalogService } from '../gen/skinmatch/v1/catalog_pb.ts';
import { OAuthStateService } from '../gen/skinmatch/v1/oauth_state_pb.ts';
import type { Logger } from '../services/shared/logger.ts';
import type { OAuthConfig } from '../services/shared/oauth-config.ts';
import { accountEndpoint } from './mcp/account-endpoint.ts';
import { accountScanTools } from './mcp/account-tools.ts';
import { BearerVerifier } from './mcp/bearer.ts';
import { catalogTools } from './mcp/catalog-tools.ts';
import { mcpEndpoint } from './mcp/endpoint.ts';
import { buildServer, INSTRUCTIONS } from './mcp/mcp-server.ts';
import { RequestMultiplexer } from './mcp/multiplexer.ts';
import type { ToolDefinition } from './mcp/tool-definition.ts';
import { authorizationServer, RESOURCE_METADATA_PATH, tooManyRequests } from './oauth/endpoints.ts';
import { interactionRoutes } from './oauth/interactions.ts';
import { createProvider } from './oauth/provider.ts';
import { ACCOUNT_RESOURCE_PATH } from './oauth/scopes.ts';
import { SignIn } from './oauth/sign-in.ts';
import { Upstream } from './oauth/upstream.ts';
import { savePages } from './pages/save-page.ts';
import type { GuestLimits } from './rate-limits.ts';

const ACCOUNT_INSTRUCTIONS = `${INSTRUCTIONS}
On this signed-in endpoint scans belong to the person's account: list_my_scans lists them and get_skin_scan
and delete_skin_scan take the run_id alone (recommend_products still needs the scan's access_token, so a
complete scan read by run_id alone says next_action none). delete_my_service_data deletes everything; confirm with the
person first.`;

export interface AccountSurfaceOptions {
  readonly core: Transport;
  readonly publicBaseUrl: string;
  readonly oauth: OAuthConfig;
  readonly trustProxy: boolean;
  readonly logger: Logger;
  /** The guest tools whose twins /mcp/account serves (the scan tools, recommend_products). */
  readonly guestTools: readonly ToolDefinition[];
  readonly limits: GuestLimits;
  /** The longest an MCP request waits for its answer. */
  readonly requestTimeoutMs?: number;
  /** The deadline on each call to core (CORE_TIMEOUT_MS), for the log line of a call past it. */
  readonly coreTimeoutMs?: number;
}

export async function createAccountSurface(options: AccountSurfaceOptions) {
  const { publicBaseUrl: issuer, logger } = options;
  const accounts = createClient(AccountService, options.core);
  const state = createClient(OAuthStateService, options.core);
  const provider = createProvider({
    issuer,
    signingKey: options.oauth.signingKey,
    cookieKeys: options.oauth.cookieKeys,
    state,
    accounts,
    trustProxy: options.trustProxy,
  });
  const upstreams = options.oauth.upstreams.map((p) => new Upstream(p, issuer));
  const guest = (name: string) => options.guestTools.find((tool) => tool.name === name)!;
  const tools: ToolDefinition[] = [
    ...accountScanTools(accounts, guest),
    { ...guest('recommend_products'), scope: 'scan:read' },
    ...catalogTools(createClient(CatalogService, options.core)),
  ];
  const mux = new RequestMultiplexer(options.requestTimeoutMs);
  await buildServer(tools, logger, ACCOUNT_INSTRUCTIONS, [], options.coreTimeoutMs).connect(mux);
  const serve = mcpEndpoint(mux, options.limits, logger);
  const endpoint = accountEndpoint({
    verifier: new BearerVerifier(
      options.oauth.signingKey,
      issuer,
      `${issuer}${ACCOUNT_RESOURCE_PATH}`,
      state,
      accounts,
    ),
    tools,
    resourceMetadataUrl: `${issuer}${RESOURCE_METADATA_PATH}`,
    limits: options.limits,
    serve,
    logger,
  });
  const signIn = new SignIn({
    upstreams,
    accounts,
    publicBaseUrl: issuer,
    cookieKeys: options.oauth.cookieKeys,
    logger,
  });
  const interactions = interactionRoutes({ provider, signIn, accounts, logger });
  const saves = savePages({ accounts, signIn, publicBaseUrl: issuer, logger });
  const server = authorizationServer(provider, issuer, options.limits, logger);
  // Every request here spends a point of the network's request budget, as MCP requests do: each
  // /authorize stores an interaction, so without a bound one network could fill the database with them
  // (the size of each is bounded in oauth/endpoints.ts, its lifetime in oauth/provider.ts).
  const pages: Middleware = async (ctx, next) => {
    const refusal = await options.limits.checkRequest(ctx.ip);
    if (refusal) return tooManyRequests(ctx, refusal.retryAfterSeconds ?? 1, refusal.message);
    await signIn.callback(ctx, () => interactions(ctx, () => saves(ctx, () => server(ctx, next))));
  };
  return { endpoint, pages, provider, tools };
}
