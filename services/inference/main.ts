/** The inference process: stateless face analysis over Connect/gRPC; no database, any number of replicas. */
import { loadConfig } from '../shared/config.ts';
import { loadOrExit } from '../shared/env-reader.ts';
import { createLogger } from '../shared/logger.ts';
import { startMetricsServer } from '../shared/metrics.ts';
import { startTraceExport, traceExportSettings } from '../shared/trace-export.ts';
import { startInference } from './inference-server.ts';

const config = loadOrExit('inference', () => loadConfig());
const logger = createLogger('inference', config.logLevel);
const traces = await startTraceExport(
  loadOrExit('inference', () => traceExportSettings('inference', process.env)),
  logger,
);
const server = await startInference(config.inferencePort, logger, config.inferenceHost, {
  stageDelayMs: config.inferenceStageDelayMs,
});
logger.info(
  { host: config.inferenceHost, port: server.port },
  'inference listening (Connect, gRPC, gRPC-Web on h2c)',
);
const metrics = await startMetricsServer({
  port: config.metricsPorts.inference,
  host: config.metricsHost ?? config.inferenceHost,
  logger,
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    logger.info({ signal }, 'inference stopping');
    await server.close();
    await metrics?.close();
    await traces?.shutdown();
    process.exit(0);
  });
}
