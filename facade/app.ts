/**
 * The façade: a Koa app that owns HTTP concerns only — MCP JSON-RPC (/mcp for guests, /mcp/account
 * behind OAuth), /health, the authorization server and the person's pages. Every tool call becomes Connect calls to core; no business rule lives only here.
 */
import { createClient, type Transport } from '@connectrpc/connect';
import { context } from '@opentelemetry/api';
import Koa from 'koa';
import type pg from 'pg';
import { IntakeService } from '../gen/skinmatch/v1/intake_pb.ts';
import { MatchService } from '../gen/skinmatch/v1/match_pb.ts';
import { ScanService } from '../gen/skinmatch/v1/scan_pb.ts';
import { StatusService } from '../gen/skinmatch/v1/status_pb.ts';
import type { Logger } from '../services/shared/logger.ts';
import { rateLimitRefusals, rateLimitsShared } from '../services/shared/metrics.ts';
import type { OAuthConfig } from '../services/shared/oauth-config.ts';
import type { Readiness } from '../services/shared/shutdown.ts';
import {
  extractTraceContext,
  REQUEST_ID_HEADER,
  requestIdFrom,
  withRequestId,
} from '../services/shared/telemetry.ts';
import { createAccountSurface } from './account.ts';
import { continueWhenRead } from './body.ts';
import { healthEndpoint, readyEndpoint } from './health.ts';
import { countRequests } from './http-metrics.ts';
import { corsOriginCheck, mcpCors } from './mcp/cors.ts';
import { mcpEndpoint } from './mcp/endpoint.ts';
import { matchTools } from './mcp/match-tools.ts';
import { buildServer, INSTRUCTIONS } from './mcp/mcp-server.ts';
import { RequestMultiplexer } from './mcp/multiplexer.ts';
import { scanTools } from './mcp/scan-tools.ts';
import { clientAddress } from './net.ts';
import { notFoundPage } from './not-found.ts';
import type { StreamBounds } from './pages/page-streams.ts';
import { scanPages } from './pages/scan-page.ts';
import { GuestLimits, type GuestLimitsConfig, type LimitListeners } from './rate-limits.ts';
import { routeTemplate } from './route-template.ts';
import { securityHeaders } from './security-headers.ts';
import { type BodyBounds, slowBodies } from './slow-bodies.ts';

/**
 * The probes' endpoints: GET, and HEAD (the same answer without its body, as HTTP requires of a GET
 * resource: uptime monitors ask with HEAD); logged at debug (probes ask every few seconds).
 */
const PROBES = new Set(['/health', '/ready']);

export interface FacadeOptions {
  /** Connect transport to core. */
  readonly core: Transport;
  /** Host header values accepted (DNS-rebinding protection); lowercase `host[:port]`. */
  readonly allowedHosts: readonly string[];
  /** Browser origins allowed on the MCP endpoints across origins (MCP_ALLOWED_ORIGINS, mcp/cors.ts). */
  readonly allowedOrigins?: readonly string[];
  readonly logger: Logger;
  /** Rate limits per network (guests) and per account (signed in). */
  readonly limits?: GuestLimitsConfig;
  /**
   * Where the limits count, shared by every replica (the `rate_limits` table); each replica's own memory
   * without one.
   */
  readonly limitStore?: pg.Pool;
  /** Trust X-Forwarded-For from the proxies in front (set when behind an ingress). */
  readonly trustProxy?: boolean;
  /** The public address: the authorization server's issuer and the base of every link. */
  readonly publicBaseUrl: string;
  /** Signing key, cookie keys and upstream identity providers of the authorization server. */
  readonly oauth: OAuthConfig;
  /**
   * How many proxies in front append to X-Forwarded-For (default 1): the client address is the entry that
   * many places from the right, never one the client could have written itself.
   */
  readonly trustedProxyHops?: number;
  /** The longest an MCP request waits for its answer before it ends as `unavailable`. */
  readonly requestTimeoutMs?: number;
  /** The deadline `core` applies to each call (CORE_TIMEOUT_MS), for the log line of a call past it. */
  readonly coreTimeoutMs?: number;
  /** The request multiplexer to use (tests look into it); one is made otherwise. */
  readonly multiplexer?: RequestMultiplexer;
  /** Whether this façade takes new work: /health answers 503 once it is shutting down. */
  readonly readiness?: Readiness;
  /** The upload page's photo size bound (PHOTO_MAX_BYTES; default 10 MB), enforced while the body streams in. */
  readonly photoMaxBytes?: number;
  /** How often the upload page's quiet progress stream gets a keep-alive comment (default 15 s). */
  readonly pageKeepAliveMs?: number;
  /** Bounds on the upload page's open progress streams (facade/pages/page-streams.ts; tests lower them). */
  readonly pageStreamBounds?: StreamBounds;
  /** Bounds on slow request bodies (facade/slow-bodies.ts; tests lower them). */
  readonly bodyBounds?: BodyBounds;
}

export async function createFacade(options: FacadeOptions): Promise<Koa> {
  const { logger } = options;
  const guestMux = options.multiplexer ?? new RequestMultiplexer(options.requestTimeoutMs);
  const guestTools = [
    ...scanTools(createClient(ScanService, options.core)),
    ...matchTools(createClient(MatchService, options.core)),
  ];
  const limits = new GuestLimits(
    options.limits,
    options.limitStore,
    limitListeners(logger, options.limitStore !== undefined),
  );
  const account = await createAccountSurface({
    core: options.core,
    publicBaseUrl: options.publicBaseUrl,
    oauth: options.oauth,
    trustProxy: options.trustProxy === true,
    logger,
    guestTools,
    limits,
    requestTimeoutMs: options.requestTimeoutMs,
    coreTimeoutMs: options.coreTimeoutMs,
  });
  const guestNames = new Set(guestTools.map((tool) => tool.name));
  const accountOnly = account.tools.map((tool) => tool.name).filter((name) => !guestNames.has(name));
  await buildServer(guestTools, logger, INSTRUCTIONS, accountOnly, options.coreTimeoutMs).connect(guestMux);
  const guestEndpoint = mcpEndpoint(guestMux, limits, logger);
  const routes = new Map<string, Koa.Middleware>([
    ['/mcp', (ctx) => guestEndpoint(ctx)],
    ['/mcp/account', account.endpoint],
    ['/health', healthEndpoint(createClient(StatusService, options.core), logger, options.readiness)],
    ['/ready', readyEndpoint(options.readiness)],
  ]);

  const app = new Koa();
  // Koa's own handler writes the stack of an error on a request's connection to stderr, outside the log:
  // a browser gone mid-upload (a phone losing its signal) is Node's "Parse Error" or ECONNRESET on the
  // socket. One log line instead: the client's doing at info, anything else at error. It stands for the
  // request's own line (no `request` 400 after it), and a client the façade refused as too slow has its
  // line already (slow-bodies.ts): its connection ending is no news.
  app.on('error', (err: NodeJS.ErrnoException, ctx?: Koa.Context) => {
    if (ctx?.state.slowClient !== undefined) return;
    const client = /^HPE_|^ECONN(RESET|ABORTED)$|^EPIPE$/.test(err.code ?? '') || err.message === 'aborted';
    if (client && ctx) ctx.state.logged = true;
    logger[client ? 'info' : 'error'](
      { path: ctx ? routeTemplate(ctx.path) : undefined, err: err.message, code: err.code },
      client ? 'client connection ended before its request did' : 'connection error',
    );
  });
  app.proxy = options.trustProxy === true;
  app.keys = [...options.oauth.cookieKeys];
  app.maxIpsCount = options.trustedProxyHops ?? 1;
  // Every request counted once, by route template and the status its response ended with (http-metrics.ts).
  app.use(countRequests);
  // The client address, port and brackets off, before anything reads it (facade/net.ts).
  app.use(clientAddress(logger));
  // Every answer's protective headers, before anything can answer (security-headers.ts).
  app.use(securityHeaders(options.publicBaseUrl));
  // A page a person can read where no route answers a browser's navigation (not-found.ts).
  app.use(notFoundPage);
  // While shutting down, every answer closes its connection, so no client keeps one to a façade that is
  // about to stop listening: its next request opens a connection to another replica.
  app.use(async (ctx, next) => {
    if (options.readiness?.draining) ctx.set('Connection', 'close');
    await next();
  });
  // Every request runs in a context with its request id (a sane incoming X-Request-Id, else a new one;
  // echoed on the response) and the trace its `traceparent` names: every log line written for it, and
  // every call to core, carries both (services/shared/telemetry.ts).
  app.use(async (ctx, next) => {
    const requestId = requestIdFrom(ctx.get(REQUEST_ID_HEADER) || undefined);
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    const started = performance.now();
    // The route, not the path: paths hold ids, and whatever a client put in them (route-template.ts).
    const route = routeTemplate(ctx.path);
    await context.with(withRequestId(extractTraceContext(ctx.headers), requestId), async () => {
      let answered = false;
      try {
        await next();
        answered = true;
      } finally {
        const bound: string | undefined = ctx.state.slowClient;
        const line = {
          method: ctx.method,
          path: route,
          status: ctx.status,
          ms: Math.round(performance.now() - started),
        };
        // A client refused as too slow (408 or 429): its one line says so (also when the route gave up on
        // the body it was reading), as a warning — many at once are a probe holding the façade's
        // connections (skinmatch_slow_client_refusals_total counts them).
        if (bound !== undefined) logger.warn({ ...line, bound }, 'slow client refused');
        else if (answered && ctx.state.logged !== true)
          logger[PROBES.has(route) ? 'debug' : 'info'](line, 'request');
      }
    });
  });
  // Slow bodies cut, and too many at once from one network (or on a connection past its network's bound of
  // open connections, server.ts) refused, before any route reads a byte (facade/slow-bodies.ts).
  app.use(slowBodies(options.bodyBounds));
  // `Expect: 100-continue` answered once a route reads the body, never for a body refused unread (body.ts).
  app.use(continueWhenRead());
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      logger.error(
        { path: routeTemplate(ctx.path), err: err instanceof Error ? err.message : String(err) },
        'request failed',
      );
      ctx.status = 500;
      ctx.body = { error: 'internal_error', message: 'The request could not be served.' };
    }
  });
  // DNS-rebinding protection for the MCP endpoints: the Host, and the Origin a browser sends, must be
  // ours, or one the operator listed (mcp/cors.ts). /health and /ready stay reachable by pod address.
  const listedOrigin = corsOriginCheck(options.allowedOrigins ?? []);
  const allowedHosts = new Set(options.allowedHosts.map(hostKey));
  app.use(async (ctx, next) => {
    if (ctx.path.startsWith('/mcp')) {
      const refusal = !allowedHosts.has(hostKey(ctx.get('host')))
        ? 'Host not allowed.'
        : !originAllowed(ctx.get('origin'), allowedHosts) && !listedOrigin(ctx.get('origin'))
          ? 'Origin not allowed.'
          : undefined;
      if (refusal) {
        ctx.status = 403;
        ctx.body = { jsonrpc: '2.0', id: null, error: { code: -32000, message: refusal } };
        return;
      }
    }
    await next();
  });
  // A listed origin's preflight answered, and its answers readable by its page (mcp/cors.ts).
  app.use(mcpCors(options.allowedOrigins ?? []));
  app.use(async (ctx, next) => {
    // A URL pasted with a trailing slash (`/mcp/`, `/mcp/account/`) names the same endpoint; only the slash
    // (any other last character dropped made `/mcpx` and `/mcp/accounts` endpoints too).
    const bare = ctx.path.startsWith('/mcp') && ctx.path.endsWith('/') ? ctx.path.slice(0, -1) : undefined;
    const route = routes.get(ctx.path) ?? (bare === undefined ? undefined : routes.get(bare));
    if (!route) return next();
    if (PROBES.has(ctx.path) && ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      ctx.status = 405;
      ctx.set('Allow', 'GET, HEAD');
      return;
    }
    await route(ctx, next);
  });
  // The person's upload page.
  app.use(
    scanPages({
      intake: createClient(IntakeService, options.core),
      limits,
      publicBaseUrl: options.publicBaseUrl,
      logger,
      maxBytes: options.photoMaxBytes,
      keepAliveMs: options.pageKeepAliveMs,
      streamBounds: options.pageStreamBounds,
      readiness: options.readiness,
    }),
  );
  // The authorization server and the person's sign-in pages.
  app.use(account.pages);
  return app;
}

/**
 * A host as Host headers and origins are compared: lower case, without the scheme's default port or the
 * root's trailing dot, which name the same server. A client given `https://host:443/mcp` (Go's net/http,
 * the official Go SDK's client among them) sends `Host: host:443`, and one given a fully qualified
 * `host.` sends the dot: both were refused as another host.
 */
function hostKey(host: string): string {
  const [, name = '', port] = /^(.*?)(?::(\d*))?$/.exec(host.trim().toLowerCase()) ?? [];
  const bare = name.endsWith('.') ? name.slice(0, -1) : name;
  return port === undefined || port === '' || port === '80' || port === '443' ? bare : `${bare}:${port}`;
}

/** No Origin (not a browser) is fine; one present must be an http(s) origin on an allowed host. */
function originAllowed(origin: string, allowedHosts: ReadonlySet<string>): boolean {
  if (origin === '') return true;
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && allowedHosts.has(hostKey(url.host));
  } catch {
    return false; // "null" and anything else that is not an origin
  }
}

/**
 * Refusals are counted; where the limits count is a gauge, and each change one log line: a warning when the
 * database's lookups start failing (an outage, or a DATABASE_URL that is wrong for the façade alone: it
 * serves on, its limits per replica), an info line when they answer again.
 */
function limitListeners(logger: Logger, hasStore: boolean): LimitListeners {
  rateLimitsShared.set(hasStore ? 1 : 0);
  return {
    refused: (budget) => rateLimitRefusals.inc({ budget }),
    storeChanged: (shared, failure) => {
      rateLimitsShared.set(shared ? 1 : 0);
      if (shared)
        logger.info('rate limits: database lookups answer again; every replica counts them together');
      else
        logger.warn(
          { err: failure },
          'rate limits: database lookups fail; each replica counts them in its own memory until they answer',
        );
    },
  };
}
