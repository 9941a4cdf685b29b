/**
 * Waiting for a gRPC process to be ready: its grpc.health.v1 `readiness` check SERVING, as the chart's
 * readinessProbe asks (supervisor, benchmarks, tests). Core listens at once, then migrates and loads the
 * catalog; until both have ended it answers `unavailable` or `catalog_unavailable`, and is not ready.
 */
import { createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { Health, HealthCheckResponse_ServingStatus } from '../gen/grpc/health/v1/health_pb.ts';

/** Resolves true once `readiness` answers SERVING on `port`; false after `timeoutMs` or when `cancelled()` says so. */
export async function waitForReady(
  port: number,
  timeoutMs = 60_000,
  cancelled = () => false,
): Promise<boolean> {
  const health = createClient(
    Health,
    createConnectTransport({ baseUrl: `http://127.0.0.1:${port}`, httpVersion: '2' }),
  );
  const deadline = Date.now() + timeoutMs;
  while (!cancelled()) {
    const status = await health
      .check({ service: 'readiness' }, { timeoutMs: 2000 })
      .then((r) => r.status)
      .catch(() => undefined);
    if (status === HealthCheckResponse_ServingStatus.SERVING) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}
