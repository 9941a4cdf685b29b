/**
 * The façade process: MCP over HTTP for agents, pages for people, /health for everyone; core behind it.
 */
import pg from 'pg';
import { loadFacadeConfig } from '../services/shared/config.ts';
import { logConsoleAndWarnings } from '../services/shared/console-log.ts';
import { loadOrExit } from '../services/shared/env-reader.ts';
import { createInternalTransport } from '../services/shared/internal-transport.ts';
import { createLogger } from '../services/shared/logger.ts';
import { startMetricsServer } from '../services/shared/metrics.ts';
import { Readiness, shutDownGracefully } from '../services/shared/shutdown.ts';
import { guardStartup } from '../services/shared/startup.ts';
import { stopWithSupervisor } from '../services/shared/supervisor-link.ts';
import { clientTelemetry } from '../services/shared/telemetry.ts';
import { startTraceExport, traceExportSettings } from '../services/shared/trace-export.ts';
import { createFacade } from './app.ts';
import { createFacadeServer, serverBounds } from './server.ts';

const config = loadOrExit('facade', () => loadFacadeConfig());
const logger = createLogger('facade', config.logLevel);
// Libraries' console output and Node's warnings as JSON lines of this log (console-log.ts).
logConsoleAndWarnings(logger);
// The port taken: one fatal line, exit 1 (startup.ts); the server's 'error' is uncaught until it listens.
const startup = guardStartup(logger);
// Run by npm start: should it be killed outright, stop as on SIGTERM (supervisor-link.ts).
stopWithSupervisor();
const traces = await startTraceExport(
  loadOrExit('facade', () => traceExportSettings('facade', process.env)),
  logger,
);
const core = createInternalTransport({
  baseUrl: config.coreUrl,
  defaultTimeoutMs: config.coreTimeoutMs,
  interceptors: [clientTelemetry()],
});
// The façade's only database use: the rate-limit counters every replica shares (docs/design-notes.md).
const limitStore = config.databaseUrl
  ? new pg.Pool({
      connectionString: config.databaseUrl,
      max: 4,
      idleTimeoutMillis: 30_000,
      // A stalled server answers nothing: a lookup gives up after 2 s (rate-limits.ts), and the connection
      // itself is dropped after these bounds, so a hang never holds the pool's connections for good.
      connectionTimeoutMillis: 5000,
      query_timeout: 10_000,
      keepAlive: true,
    })
  : undefined;
limitStore?.on('error', (err) => logger.warn({ err: err.message }, 'rate-limit database connection lost'));
// Production requires DATABASE_URL (config.ts): replicas share their rate limits in PostgreSQL.
if (!limitStore) logger.warn('DATABASE_URL is not set: rate limits count in this process only');
const readiness = new Readiness();
const app = await createFacade({
  core,
  readiness,
  allowedHosts: config.allowedHosts,
  allowedOrigins: config.mcpAllowedOrigins,
  logger,
  limits: {
    requestsPerMinute: config.guestRequestsPerMinute,
    callsPerMinute: config.guestCallsPerMinute,
    scansPerHour: config.guestScansPerHour,
    uploadsPerHour: config.guestUploadsPerHour,
    registrationsPerHour: config.registrationsPerHour,
    toolBudgets: config.toolBudgets,
  },
  limitStore,
  trustProxy: config.trustedProxyHops > 0,
  trustedProxyHops: config.trustedProxyHops,
  requestTimeoutMs: config.mcpRequestTimeoutMs,
  coreTimeoutMs: config.coreTimeoutMs,
  publicBaseUrl: config.publicBaseUrl,
  oauth: config.oauth,
  photoMaxBytes: config.photoMaxBytes,
});
for (const warning of config.warnings) logger.warn(warning);
const metrics = await startMetricsServer({
  process: 'facade',
  port: config.metricsPorts.facade,
  host: config.metricsHost ?? '127.0.0.1',
  logger,
});
// Bounds on slow clients: headers, bodies, silent and idle connections, connections per network (server.ts).
const answerWaitMs = Math.max(config.mcpRequestTimeoutMs, config.coreTimeoutMs);
const bounds = serverBounds(config.trustedProxyHops > 0, config.photoMaxBytes, answerWaitMs);
const server = createFacadeServer(bounds, logger);
server.on('request', app.callback());
server.listen(config.facadePort, () => {
  logger.info({ port: config.facadePort, base_url: config.publicBaseUrl }, 'facade listening');
  startup.done();
});

// On SIGTERM: /health 503 at once; after the drain delay the port is closed (idle connections with it),
// the upload pages' progress streams end (their browsers reconnect elsewhere), the requests in flight are
// answered — each closing its connection — and the process exits.
shutDownGracefully({
  logger,
  readiness,
  drainDelayMs: config.shutdownDrainDelayMs,
  timeoutMs: config.shutdownTimeoutMs,
  drain: async () => {
    const closed = new Promise<void>((resolve, reject) =>
      server.close((err) => (err ? reject(err) : resolve())),
    );
    readiness.endStreams();
    await closed;
    await metrics?.close();
    await traces?.shutdown();
    await limitStore?.end();
  },
});
