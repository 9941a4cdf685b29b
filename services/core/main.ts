/**
 * The core process: opens the database, listens, applies migrations and serves the business services.
 * Started by `npm start`'s supervisor, or on its own with DATABASE_URL set.
 */

import { loadDemoCatalog } from '../catalog/demo-catalog.ts';
import { AltchaChallenge } from '../intake/altcha-challenge.ts';
import { DEFAULT_ANALYSIS_RETRY } from '../scan/analysis-retry.ts';
import { InferenceAnalyzer } from '../scan/inference-analyzer.ts';
import { createInferenceTransport } from '../scan/inference-transport.ts';
import { watchInference } from '../scan/inference-watch.ts';
import { loadCoreConfig } from '../shared/config.ts';
import { logConsoleAndWarnings } from '../shared/console-log.ts';
import { loadOrExit } from '../shared/env-reader.ts';
import { createLogger } from '../shared/logger.ts';
import { startMetricsServer } from '../shared/metrics.ts';
import { Readiness, shutDownGracefully, shutdownGraceMs } from '../shared/shutdown.ts';
import { guardStartup } from '../shared/startup.ts';
import { stopWithSupervisor } from '../shared/supervisor-link.ts';
import { startTraceExport, traceExportSettings } from '../shared/trace-export.ts';
import { startCore } from './core.ts';
import { migrate, openDatabase } from './db/orm.ts';

const config = loadOrExit('core', () => loadCoreConfig());
const logger = createLogger('core', config.logLevel);
// Libraries' console output and Node's warnings as JSON lines of this log (console-log.ts).
logConsoleAndWarnings(logger);
// The database unreachable or refusing us, the port taken: one fatal line, exit 1 (startup.ts).
const startup = guardStartup(logger, config.databaseUrl);
// Run by npm start: should it be killed outright, stop as on SIGTERM (supervisor-link.ts).
stopWithSupervisor();
for (const warning of config.warnings) logger.warn(warning);
const traces = await startTraceExport(
  loadOrExit('core', () => traceExportSettings('core', process.env)),
  logger,
);
if (!config.databaseUrl) {
  logger.fatal('DATABASE_URL is required (npm start provides one on an embedded PostgreSQL)');
  process.exit(1);
}
const databaseUrl = config.databaseUrl;
const readiness = new Readiness();
const orm = await openDatabase(config.databaseUrl, { serving: true });
/** Aborted by a SIGTERM before core has started: the wait for the migration lock ends, nothing starts. */
const starting = new AbortController();
/**
 * Migrations (and the demo catalog) once core listens — a migration may run long, or wait for the chart's
 * migration Job to release the lock: meanwhile core answers its probes, `readiness` NOT_SERVING — on
 * connections without the serving timeouts.
 */
async function prepare(): Promise<void> {
  const setup = await openDatabase(databaseUrl);
  try {
    await migrate(setup, logger, starting.signal);
    if (config.loadSampleCatalog && !starting.signal.aborted) {
      const demo = await loadDemoCatalog(setup.em.fork());
      if (demo.skipped === null)
        logger.info({ products: demo.loaded }, 'catalog was empty: loaded the demo catalog');
      else logger.info({ reason: demo.skipped }, 'demo catalog not loaded');
    }
  } finally {
    await setup.close();
  }
}
const inference = createInferenceTransport(config.inferenceUrl);
const start = startCore({
  orm,
  databaseUrl: config.databaseUrl,
  pepper: config.tokenPepper,
  publicBaseUrl: config.publicBaseUrl,
  port: config.corePort,
  host: config.coreHost,
  logger,
  abandonedAfterMs: config.scanAbandonedAfterMs,
  analysisRetry: { ...DEFAULT_ANALYSIS_RETRY, windowMs: config.analysisRetryWindowMs },
  intake: {
    challenge: new AltchaChallenge({ hmacKey: config.altchaHmacKey }),
    limits: {
      maxBytes: config.photoMaxBytes,
      maxPixels: config.photoMaxPixels,
      uploadsPerHour: config.photoUploadsPerHour,
    },
  },
  admissions: { bounds: config.admissionBounds, intervalMs: config.admissionsCheckMs },
  readiness,
  shutdownGraceMs: shutdownGraceMs(config),
  limits: config.serverLimits,
  analyzer: new InferenceAnalyzer(inference, config.inferenceTimeoutMs),
  listening: (port) =>
    logger.info(
      { host: config.coreHost, port },
      'core listening (Connect, gRPC, gRPC-Web on h2c and HTTP/1.1)',
    ),
  prepare,
  signal: starting.signal,
}).catch((err: unknown) => {
  if (!starting.signal.aborted) throw err; // a failed start: one fatal line, exit 1 (startup.ts)
  logger.info('stopped while starting (waiting for the migrations, or preparing): no work taken');
  return undefined;
});

let core: Awaited<typeof start>;
let stopInferenceWatch: (() => void) | undefined;
let metrics: Awaited<ReturnType<typeof startMetricsServer>> | undefined;

// On SIGTERM: NOT_SERVING at once; after the drain delay no new job nor call is taken, the calls in flight
// are answered and the analyses running finish, or are handed back to the queue for another core. While
// core is still starting (its migrations waiting for another process's lock), it stops starting at once:
// the server closed, the pool closed, exit 0.
shutDownGracefully({
  logger,
  readiness,
  drainDelayMs: config.shutdownDrainDelayMs,
  timeoutMs: config.shutdownTimeoutMs,
  started: () => core !== undefined,
  drain: async () => {
    starting.abort();
    const running = await start;
    stopInferenceWatch?.();
    await running?.close();
    await metrics?.close();
    await traces?.shutdown();
    await orm.close();
  },
});
core = await start;
if (core && !starting.signal.aborted) {
  stopInferenceWatch = watchInference({ transport: inference, logger, readiness });
  metrics = await startMetricsServer({
    process: 'core',
    port: config.metricsPorts.core,
    host: config.metricsHost ?? config.coreHost,
    logger,
  });
}
startup.done();
