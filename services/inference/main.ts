/** The inference process: stateless face analysis over Connect/gRPC; no database, any number of replicas. */
import { loadConfig } from '../shared/config.ts';
import { logConsoleAndWarnings } from '../shared/console-log.ts';
import { loadOrExit } from '../shared/env-reader.ts';
import { createLogger } from '../shared/logger.ts';
import { startMetricsServer } from '../shared/metrics.ts';
import { Readiness, shutDownGracefully, shutdownGraceMs } from '../shared/shutdown.ts';
import { guardStartup } from '../shared/startup.ts';
import { stopWithSupervisor } from '../shared/supervisor-link.ts';
import { startTraceExport, traceExportSettings } from '../shared/trace-export.ts';
import { startInference } from './inference-server.ts';

// onnxruntime-node 1.30 otherwise keeps a device id and telemetry events under ~/.cache (read-only in the
// chart's pods) and sends them to Microsoft's collector; it reads this when the first model is loaded.
process.env.ORT_DISABLE_TELEMETRY = '1';
const config = loadOrExit('inference', () => loadConfig());
const logger = createLogger('inference', config.logLevel);
// Libraries' console output and Node's warnings as JSON lines of this log (console-log.ts).
logConsoleAndWarnings(logger);
// The port taken, the models not loaded: one fatal line, exit 1 (startup.ts).
const startup = guardStartup(logger);
// Run by npm start: should it be killed outright, stop as on SIGTERM (supervisor-link.ts).
stopWithSupervisor();
const traces = await startTraceExport(
  loadOrExit('inference', () => traceExportSettings('inference', process.env)),
  logger,
);
const readiness = new Readiness();
const server = await startInference(
  config.inferencePort,
  logger,
  config.inferenceHost,
  { stageDelayMs: config.inferenceStageDelayMs, stallMs: config.inferenceStallMs },
  undefined,
  readiness,
);
logger.info(
  { host: config.inferenceHost, port: server.port },
  'inference listening (Connect, gRPC, gRPC-Web on h2c and HTTP/1.1)',
);
const metrics = await startMetricsServer({
  process: 'inference',
  port: config.metricsPorts.inference,
  host: config.metricsHost ?? config.inferenceHost,
  logger,
});
startup.done();

// On SIGTERM: NOT_SERVING at once; after the drain delay GOAWAY to every core, whose analysis streams in
// flight are answered to the end (each core opens its next stream to another replica). A connection still
// open at the end of the grace (a client that stopped reading its answer without cancelling it, which
// would hold the close forever) is cut, so the process still exits 0 within its bound.
shutDownGracefully({
  logger,
  readiness,
  drainDelayMs: config.shutdownDrainDelayMs,
  timeoutMs: config.shutdownTimeoutMs,
  drain: async () => {
    await server.close(shutdownGraceMs(config));
    await metrics?.close();
    await traces?.shutdown();
  },
});
