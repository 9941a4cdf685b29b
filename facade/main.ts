/**
 * The façade process: MCP over HTTP for agents, pages for people, /health for everyone; core behind it.
 */
import { createConnectTransport } from '@connectrpc/connect-node';
import { loadFacadeConfig } from '../services/shared/config.ts';
import { createLogger } from '../services/shared/logger.ts';
import { createFacade } from './app.ts';

const logger = createLogger('facade');
const config = loadFacadeConfig();
const core = createConnectTransport({
  baseUrl: config.coreUrl,
  httpVersion: '2',
  useBinaryFormat: true,
  defaultTimeoutMs: config.coreTimeoutMs,
});
const app = await createFacade({
  core,
  allowedHosts: config.allowedHosts,
  logger,
  limits: { callsPerMinute: config.guestCallsPerMinute, scansPerHour: config.guestScansPerHour },
  trustProxy: config.trustedProxyHops > 0,
  trustedProxyHops: config.trustedProxyHops,
  requestTimeoutMs: config.mcpRequestTimeoutMs,
  publicBaseUrl: config.publicBaseUrl,
  oauth: config.oauth,
});
for (const warning of config.warnings) logger.warn(warning);
const server = app.listen(config.facadePort, () => {
  logger.info({ port: config.facadePort, base_url: config.publicBaseUrl }, 'facade listening');
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    logger.info({ signal }, 'facade stopping');
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}
