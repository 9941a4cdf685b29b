/**
 * Core: every business service on one HTTP/2 server (Connect, gRPC, gRPC-Web), with grpc.health.v1 and
 * server reflection. Only core talks to PostgreSQL.
 */

import type { Interceptor } from '@connectrpc/connect';
import { Health } from '../../gen/grpc/health/v1/health_pb.ts';
import { ServerReflection } from '../../gen/grpc/reflection/v1/reflection_pb.ts';
import { AccountService } from '../../gen/skinmatch/v1/account_pb.ts';
import { CatalogService } from '../../gen/skinmatch/v1/catalog_pb.ts';
import { IntakeService } from '../../gen/skinmatch/v1/intake_pb.ts';
import { MatchService } from '../../gen/skinmatch/v1/match_pb.ts';
import { OAuthStateService } from '../../gen/skinmatch/v1/oauth_state_pb.ts';
import { ScanService } from '../../gen/skinmatch/v1/scan_pb.ts';
import { StatusService } from '../../gen/skinmatch/v1/status_pb.ts';
import { AccountServiceImpl } from '../account/account-service.ts';
import { OAuthStateServiceImpl, purgeExpiredState } from '../account/oauth-state-service.ts';
import { CatalogServiceImpl } from '../catalog/catalog-service.ts';
import { LiveCatalog } from '../catalog/catalog-store.ts';
import type { BotChallenge } from '../intake/bot-challenge.ts';
import { type IntakeLimits, IntakeServiceImpl } from '../intake/intake-service.ts';
import { purgeUsedChallenges } from '../intake/used-challenges.ts';
import { MatchServiceImpl } from '../match/match-service.ts';
import { AdmissionsGovernor, type BacklogBounds } from '../scan/admissions-governor.ts';
import type { AnalysisRetry } from '../scan/analysis-retry.ts';
import type { Analyzer } from '../scan/analyzer.ts';
import { ScanServiceImpl } from '../scan/scan-service.ts';
import { prepareQueue, startScanWorker } from '../scan/scan-worker.ts';
import { serviceError } from '../shared/errors.ts';
import { HealthService } from '../shared/health.ts';
import type { Logger } from '../shared/logger.ts';
import { analysisOldestJobAge, analysisQueueDepth, recordAdmissions } from '../shared/metrics.ts';
import { Notifications } from '../shared/notifications.ts';
import { ReflectionService } from '../shared/reflection.ts';
import { DEFAULT_READ_MAX_BYTES, type RunningServer, startServer } from '../shared/server.ts';
import { capOpenCalls, DEFAULT_SERVER_LIMITS, type ServerLimits } from '../shared/server-limits.ts';
import type { Readiness } from '../shared/shutdown.ts';
import { callScope, outsideCalls, skipAbandonedCalls } from './db/call-scope.ts';
import type { Orm } from './db/orm.ts';
import { databaseOutages } from './db/outage.ts';
import { plainSql } from './db/plain-sql.ts';
import { StatusServiceImpl } from './status-service.ts';

/** How often expired authorization-server state and used challenge solutions are deleted. */
const STATE_PURGE_INTERVAL_MS = 10 * 60 * 1000;

export interface CoreOptions {
  readonly orm: Orm;
  readonly databaseUrl: string;
  readonly pepper: Buffer;
  readonly publicBaseUrl: string;
  readonly port: number;
  readonly host?: string;
  readonly logger: Logger;
  /** The clock, replaceable in tests (token expiry). */
  readonly now?: () => Date;
  /** Face analysis for uploaded photos; without it photos queue up until a core with one runs. */
  readonly analyzer?: Analyzer;
  /** Runs after a match allowance is consumed, before the answer commits (tests simulate crashes). */
  readonly afterConsume?: () => void | Promise<void>;
  /** A scan still awaiting its photo this long after it started is purged (SCAN_ABANDONED_AFTER_HOURS). */
  readonly abandonedAfterMs?: number;
  /** How long, and how often, an analysis failed on our side is tried again (analysis-retry.ts). */
  readonly analysisRetry?: AnalysisRetry;
  /** How often the catalog looks for changes no announcement reached (catalog-store.ts). */
  readonly catalogCheckMs?: number;
  /** The upload page's bot challenge and photo bounds. */
  readonly intake: { readonly challenge: BotChallenge; readonly limits: IntakeLimits };
  /** Automatic admissions: pause new scans while the analysis backlog is over these bounds. */
  readonly admissions?: { readonly bounds: BacklogBounds; readonly intervalMs: number };
  /** Whether this core takes new work: grpc.health.v1 answers NOT_SERVING once it is shutting down. */
  readonly readiness?: Readiness;
  /**
   * On close: analyses still running this long after the worker stops taking jobs are handed back to the
   * queue, and calls (streams) still open this long after the server stops are cut.
   */
  readonly shutdownGraceMs?: number;
  /** Streams, watches, request and connection bounds of the server (GRPC_* configuration). */
  readonly limits?: ServerLimits;
  /**
   * Run once core listens, before it takes work (main.ts: the migrations and the demo catalog); meanwhile
   * `readiness` answers NOT_SERVING and every other call `unavailable`. Its failure fails the start.
   */
  readonly prepare?: () => Promise<void>;
  /** Called once core listens, before `prepare`. */
  readonly listening?: (port: number) => void;
  /**
   * Aborted to stop starting (main.ts: a SIGTERM while the migrations wait): once `prepare` has returned
   * (it stops its own waits on this signal), no queue nor worker is started, the server is closed and
   * startCore rejects with the signal's reason.
   */
  readonly signal?: AbortSignal;
}

/** Room in a request for what surrounds the photo in UploadPhoto (run id, browser secret, framing). */
const REQUEST_ROOM_BYTES = 64 * 1024;

/** Core's largest request message: the photo bound and its surroundings, at least gRPC's usual 4 MiB. */
export function requestMaxBytes(photoMaxBytes: number): number {
  return Math.max(DEFAULT_READ_MAX_BYTES, photoMaxBytes + REQUEST_ROOM_BYTES);
}

/** Default abandonment bound: the guest token's lifetime, so an upload link works the seven days promised. */
export const DEFAULT_ABANDONED_AFTER_MS = 7 * 24 * 60 * 60 * 1000;

/** A running core; `catalogLoaded` settles once its first catalog load has ended, loaded or failed. */
export interface RunningCore extends RunningServer {
  readonly catalogLoaded: Promise<void>;
}

/**
 * Starts core and resolves once it has started: listening at once, then `options.prepare` (main.ts: the
 * migrations, which may wait for a migration Job's lock), the queue and the worker. Until then core answers
 * its health checks (`readiness` NOT_SERVING) and every other call `unavailable`, rather than refusing
 * connections as a dead process does. The catalog's first load runs behind it (seconds for 40 000
 * products, minutes for millions): meanwhile `readiness` stays NOT_SERVING and the catalog's calls answer
 * `catalog_unavailable`.
 */
export async function startCore(options: CoreOptions): Promise<RunningCore> {
  const { orm, logger } = options;
  const notifications = new Notifications(options.databaseUrl, ['scan_changed', 'catalog_changed'], logger);
  const catalog = new LiveCatalog(orm, logger, options.catalogCheckMs);
  const sql = await plainSql(orm);
  // A call abandoned (deadline, cancel) before it has a connection does no database work.
  skipAbandonedCalls(sql);
  const services = [
    ScanService,
    IntakeService,
    MatchService,
    CatalogService,
    AccountService,
    OAuthStateService,
    StatusService,
  ];
  // Aborted on close: the open watches (WatchScan, health Watch) end at once instead of holding the server to its grace period.
  const stopping = new AbortController();
  const scans = new ScanServiceImpl({ ...options, sql, catalog, notifications, stopping: stopping.signal });
  const intake = new IntakeServiceImpl({
    ...options,
    ...options.intake,
    sql,
    notifications,
    stopping: stopping.signal,
  });
  let purge: NodeJS.Timeout | undefined;
  const purgeState = () => {
    purgeExpiredState(orm.em.fork()).catch((err: Error) =>
      logger.warn({ err: err.message }, 'purging expired OAuth state failed'),
    );
    purgeUsedChallenges(sql).catch((err: Error) =>
      logger.warn({ err: err.message }, 'purging used challenge solutions failed'),
    );
  };
  const governor = options.admissions
    ? new AdmissionsGovernor({
        orm,
        sql,
        logger,
        ...options.admissions,
        onReading: (backlog, pausedByBacklog, pausedByOperator) => {
          analysisQueueDepth.set(backlog.queued);
          analysisOldestJobAge.set(backlog.oldestAgeSeconds);
          recordAdmissions(pausedByOperator, pausedByBacklog);
        },
      })
    : undefined;
  const limits = options.limits ?? DEFAULT_SERVER_LIMITS;
  // Shared by every caller (health.ts): no one call's deadline fails it for the others.
  let started = false;
  const ready = () => started && !options.readiness?.draining && catalog.state !== 'loading';
  const serving = () => outsideCalls(async () => !options.readiness?.draining && (await orm.isConnected()));
  const server = await startServer({
    port: options.port,
    host: options.host,
    logger,
    limits,
    interceptors: [
      // A database that does not answer is `unavailable` with a wait, not an internal error (db/outage.ts).
      databaseOutages(logger),
      // StatusService says that core is starting (the façade's /health), rather than failing.
      refuseUntil(() => started, [Health.typeName, ServerReflection.typeName, StatusService.typeName]),
      callScope(),
      capOpenCalls(limits.maxWatches, [ScanService.method.watchScan, IntakeService.method.watchIntake]),
    ],
    routes: (router) => {
      router.service(ScanService, scans);
      router.service(IntakeService, intake);
      // Registered after its service, so it replaces the service's route: the one method whose request
      // carries a photo reads up to the photo bound, every other one up to DEFAULT_READ_MAX_BYTES (4 MiB).
      router.rpc(IntakeService.method.uploadPhoto, (req) => intake.uploadPhoto(req), {
        readMaxBytes: requestMaxBytes(options.intake.limits.maxBytes),
      });
      router.service(MatchService, new MatchServiceImpl({ ...options, sql, catalog }));
      router.service(CatalogService, new CatalogServiceImpl(catalog, options.pepper));
      router.service(AccountService, new AccountServiceImpl({ ...options, scans }));
      router.service(OAuthStateService, new OAuthStateServiceImpl(orm));
      router.service(StatusService, new StatusServiceImpl(orm, catalog, logger, () => started));
      router.service(
        Health,
        // The overall status reports the database, for operators and callers; `readiness` (the chart's
        // readinessProbe) only that this core takes work: a database outage is every replica's, and
        // taking them all out of the Service left the façades no core to answer `unavailable`.
        new HealthService(
          services.map((s) => s.typeName),
          serving,
          // Not ready either until the first catalog load has ended: a core still loading answers every
          // catalog call `catalog_unavailable`, which another replica may be able to serve. `liveness` (the
          // chart's livenessProbe) asks nothing of the database nor the catalog: answered at all, this
          // process serves calls; an outage or a catalog load restarting every core would cure nothing.
          {
            stopping: stopping.signal,
            checks: { readiness: async () => ready(), liveness: async () => true },
          },
        ),
      );
      router.service(ServerReflection, new ReflectionService([...services, Health, ServerReflection]));
    },
  });
  let worker: Awaited<ReturnType<typeof startScanWorker>>;
  try {
    // Listening already: probes and callers learn that core is starting instead of being refused.
    options.listening?.(server.port);
    await options.prepare?.();
    options.signal?.throwIfAborted();
    await notifications.start();
    await prepareQueue(options.databaseUrl, logger);
    options.signal?.throwIfAborted();
    worker = await startScanWorker({
      orm,
      databaseUrl: options.databaseUrl,
      analyzer: options.analyzer,
      notifications,
      logger,
      purge: {
        now: options.now ?? (() => new Date()),
        abandonedAfterMs: options.abandonedAfterMs ?? DEFAULT_ABANDONED_AFTER_MS,
      },
      handBackAfterMs: options.shutdownGraceMs,
      retry: options.analysisRetry,
    });
  } catch (err) {
    stopping.abort();
    await server.close(0);
    await notifications.close();
    throw err;
  }
  purge = setInterval(purgeState, STATE_PURGE_INTERVAL_MS);
  purge.unref();
  governor?.start();
  started = true;
  const catalogLoaded = catalog.start(notifications);
  return {
    port: server.port,
    catalogLoaded,
    // The server keeps answering the calls in flight while the worker finishes (or hands back) its jobs.
    close: async () => {
      clearInterval(purge);
      stopping.abort();
      await governor?.stop();
      await Promise.all([server.close(options.shutdownGraceMs), worker.stop()]);
      catalog.stop();
      await notifications.close();
    },
  };
}

/**
 * Answers every call but those of `open` services `unavailable` until `started()`: a core still starting
 * (its migrations may wait minutes for a migration Job's lock) has no queue nor worker to serve them with.
 */
function refuseUntil(started: () => boolean, open: readonly string[]): Interceptor {
  return (next) => async (req) => {
    if (started() || open.includes(req.method.parent.typeName)) return next(req);
    throw serviceError(
      'unavailable',
      'Core is starting (its database migrations have not ended); try again shortly.',
    );
  };
}
