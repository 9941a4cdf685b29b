/**
 * The RPC server of services/shared/server.ts on a free port with the routes a test gives it, for tests of
 * the server itself (the call log, limits, errors, protocols).
 */
import type { ServiceImpl } from '@connectrpc/connect';
import { pino } from 'pino';
import { Health } from '../../gen/grpc/health/v1/health_pb.ts';
import { type RunningServer, type ServerOptions, startServer } from '../../services/shared/server.ts';

/** Port 0 (a free one) and a silent logger unless the test says otherwise. */
export function startTestServer(
  options: Pick<ServerOptions, 'routes'> & Partial<ServerOptions>,
): Promise<RunningServer> {
  return startServer({ port: 0, logger: pino({ level: 'silent' }), ...options });
}

/** A server of grpc.health.v1 alone, its methods as the test writes them. */
export function startHealthServer(
  health: Partial<ServiceImpl<typeof Health>>,
  options: Partial<Omit<ServerOptions, 'routes'>> = {},
): Promise<RunningServer> {
  return startTestServer({ ...options, routes: (router) => router.service(Health, health) });
}
