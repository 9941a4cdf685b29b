/**
 * A whole running service for integration tests: a fresh PostgreSQL database, core on a real HTTP/2 port
 * and the façade on a real HTTP port, with every log line of both written to one file that tests can
 * search (no token may ever appear in it).
 */
import { createWriteStream, mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { createFacade, type FacadeOptions } from '../../facade/app.ts';
import { RequestMultiplexer } from '../../facade/mcp/multiplexer.ts';
import { DEFAULT_PHOTO_MAX_BYTES } from '../../facade/pages/scan-page.ts';
import type { GuestLimitsConfig } from '../../facade/rate-limits.ts';
import {
  createFacadeServer,
  KEEP_ALIVE_TIMEOUT_MS,
  type ServerBounds,
  serverBounds,
} from '../../facade/server.ts';
import { upsertProducts } from '../../services/catalog/catalog-store.ts';
import type { RawProduct } from '../../services/catalog/derive.ts';
import { type CoreOptions, startCore } from '../../services/core/core.ts';
import { migrate, type Orm, openDatabase } from '../../services/core/db/orm.ts';
import type { Analyzer } from '../../services/scan/analyzer.ts';
import { createInternalTransport } from '../../services/shared/internal-transport.ts';
import { createLogger } from '../../services/shared/logger.ts';
import type { UpstreamProvider } from '../../services/shared/oauth-config.ts';
import { clientTelemetry } from '../../services/shared/telemetry.ts';
import { createTestDatabase } from './database.ts';
import { testIntake } from './intake.ts';
import { testOAuthConfig } from './oauth.ts';

export interface Stack {
  readonly orm: Orm;
  readonly databaseUrl: string;
  readonly coreUrl: string;
  readonly baseUrl: string;
  readonly logFile: string;
  /** The clock core runs on; tests move it forward, or stop it at `fixedMs` (epoch ms) for exact boundaries. */
  readonly clock: { offsetMs: number; fixedMs?: number };
  /** The façade's request multiplexer, to check that nothing is left pending. */
  readonly mux: RequestMultiplexer;
  /** Starts another façade replica on the same core and database; answers its base URL. */
  addFacade(): Promise<string>;
  close(): Promise<void>;
}

export const TEST_PEPPER = Buffer.alloc(32, 7);

export interface StackOptions {
  /** Catalog products loaded before core starts. */
  readonly products?: readonly RawProduct[];
  /** Runs after a match allowance is consumed, before the answer commits. */
  readonly afterConsume?: () => void | Promise<void>;
  /** Face analysis for the scan worker; without one, uploaded photos stay queued. */
  readonly analyzer?: Analyzer;
  /** Guest rate limits; by default high enough never to get in a test's way. */
  readonly limits?: GuestLimitsConfig;
  /** Upstream identity providers of the authorization server (none by default). */
  readonly upstreams?: readonly UpstreamProvider[];
  /** Listen on this port (the upstream providers' registered callbacks name it); a free one by default. */
  readonly port?: number;
  /** The façade's deadline on each call to core (Connect `defaultTimeoutMs`); none by default. */
  readonly coreTimeoutMs?: number;
  /** The longest an MCP request waits for its answer. */
  readonly requestTimeoutMs?: number;
  /** Core's abandonment bound for scans that never got a photo (the purge's). */
  readonly abandonedAfterMs?: number;
  readonly analysisRetry?: CoreOptions['analysisRetry'];
  /** Runs on the migrated database before core starts (tests break things core meets at start). */
  readonly beforeCore?: (orm: Orm) => Promise<unknown>;
  /** The upload page's challenge and photo bounds (an easy ALTCHA and the default bounds by default). */
  readonly intake?: CoreOptions['intake'];
  /** Automatic admissions: the analysis backlog's bounds and how often core looks (off by default). */
  readonly admissions?: CoreOptions['admissions'];
  /** Core's server bounds (streams, watches, request reads, keepalive); the defaults by default. */
  readonly serverLimits?: CoreOptions['limits'];
  /** Other façade options (e.g. trustProxy, an https publicBaseUrl, the upload page's photo bound). */
  readonly facade?: Partial<
    Pick<
      FacadeOptions,
      | 'allowedHosts'
      | 'allowedOrigins'
      | 'trustProxy'
      | 'publicBaseUrl'
      | 'trustedProxyHops'
      | 'photoMaxBytes'
      | 'pageKeepAliveMs'
      | 'pageStreamBounds'
      | 'bodyBounds'
    >
  >;
  /**
   * The façade's server bounds (facade/server.ts): by default as facade/main.ts sets them, but with no bound
   * on connections per network (see startStack).
   */
  readonly server?: Partial<ServerBounds>;
}

export async function startStack(name: string, options: StackOptions = {}): Promise<Stack> {
  const db = await createTestDatabase();
  const orm = await openDatabase(db.url);
  await migrate(orm);
  if (options.products) await upsertProducts(orm.em.fork(), options.products);
  await options.beforeCore?.(orm);
  const logDir = resolve('.data/test-logs');
  mkdirSync(logDir, { recursive: true });
  const logFile = join(logDir, `${name}.log`);
  const stream = createWriteStream(logFile);
  // The services' own logger (its redaction and scrubbing), so the run's check of the logs tests them.
  const logger = createLogger('stack', 'debug', stream);
  const clock: Stack['clock'] = { offsetMs: 0 };
  // The façade's port is needed first: core builds upload links from the public base URL.
  // As facade/main.ts sets them, except the bound on connections per network: every test's client is
  // 127.0.0.1, and some open more connections at once than a network may (tests of that bound set it).
  const bounds: ServerBounds = {
    ...serverBounds(true, options.facade?.photoMaxBytes ?? DEFAULT_PHOTO_MAX_BYTES),
    ...(options.facade?.trustProxy ? {} : { keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT_MS }),
    ...options.server,
  };
  const server = createFacadeServer(bounds, logger.child({ name: 'facade' }));
  await new Promise<void>((ready) => server.listen(options.port ?? 0, '127.0.0.1', ready));
  const port = (server.address() as AddressInfo).port;
  const baseUrl = `http://127.0.0.1:${port}`;
  const core = await startCore({
    orm,
    databaseUrl: db.url,
    pepper: TEST_PEPPER,
    publicBaseUrl: baseUrl,
    port: 0,
    host: '127.0.0.1',
    logger: logger.child({ name: 'core' }),
    now: () => new Date(clock.fixedMs ?? Date.now() + clock.offsetMs),
    afterConsume: options.afterConsume,
    analyzer: options.analyzer,
    abandonedAfterMs: options.abandonedAfterMs,
    analysisRetry: options.analysisRetry,
    intake: options.intake ?? testIntake(),
    admissions: options.admissions,
    limits: options.serverLimits,
  });
  // Tests start from a loaded catalog (core itself answers while it loads: test/core/catalog-first-load.test.ts).
  await core.catalogLoaded;
  const coreUrl = `http://127.0.0.1:${core.port}`;
  // The façade's transport to core, as facade/main.ts builds it.
  const transport = createInternalTransport({
    baseUrl: coreUrl,
    defaultTimeoutMs: options.coreTimeoutMs,
    interceptors: [clientTelemetry()],
  });
  const mux = new RequestMultiplexer(options.requestTimeoutMs);
  const limitStore = new pg.Pool({ connectionString: db.url, max: 4 });
  const servers = [server];
  // A façade on `listening`'s port; every replica shares core, the database and the rate-limit table.
  const serveFacade = async (listening: Server, multiplexer?: RequestMultiplexer) => {
    const port = (listening.address() as AddressInfo).port;
    const app = await createFacade({
      core: transport,
      allowedHosts: [`127.0.0.1:${port}`, `localhost:${port}`],
      logger: logger.child({ name: 'facade', port }),
      limits: options.limits ?? {
        requestsPerMinute: 1_000_000,
        callsPerMinute: 1_000_000,
        scansPerHour: 1_000_000,
        uploadsPerHour: 1_000_000,
        registrationsPerHour: 1_000_000,
      },
      limitStore,
      publicBaseUrl: baseUrl,
      oauth: testOAuthConfig(options.upstreams),
      multiplexer,
      coreTimeoutMs: options.coreTimeoutMs,
      ...options.facade,
    });
    listening.on('request', app.callback());
  };
  await serveFacade(server, mux);
  return {
    orm,
    databaseUrl: db.url,
    coreUrl,
    baseUrl,
    logFile,
    clock,
    mux,
    addFacade: async () => {
      const replica = createFacadeServer(bounds, logger.child({ name: 'facade' }));
      await new Promise<void>((ready) => replica.listen(0, '127.0.0.1', ready));
      servers.push(replica);
      await serveFacade(replica);
      return `http://127.0.0.1:${(replica.address() as AddressInfo).port}`;
    },
    close: async () => {
      for (const each of servers) {
        each.closeAllConnections();
        await new Promise((done) => each.close(done));
      }
      await core.close();
      await limitStore.end();
      await orm.close();
      await db.drop();
      await new Promise((done) => stream.end(done));
    },
  };
}
