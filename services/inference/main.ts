/** The inference process: stateless face analysis over Connect/gRPC; no database, any number of replicas. */
import { loadConfig } from '../shared/config.ts';
import { loadOrExit } from '../shared/env-reader.ts';
import { createLogger } from '../shared/logger.ts';
import { startInference } from './inference-server.ts';

const config = loadOrExit('inference', () => loadConfig());
const logger = createLogger('inference', config.logLevel);
const server = await startInference(config.inferencePort, logger, config.inferenceHost, {
  stageDelayMs: config.inferenceStageDelayMs,
});
logger.info(
  { host: config.inferenceHost, port: server.port },
  'inference listening (Connect, gRPC, gRPC-Web on h2c)',
);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    logger.info({ signal }, 'inference stopping');
    await server.close();
    process.exit(0);
  });
}
