/** The inference process's server: InferenceService and its own grpc.health.v1, on h2c. */
import { Health } from '../../gen/grpc/health/v1/health_pb.ts';
import { InferenceService } from '../../gen/skinmatch/inference/v1/inference_pb.ts';
import { HealthService } from '../shared/health.ts';
import type { Logger } from '../shared/logger.ts';
import { type RunningServer, startServer } from '../shared/server.ts';
import type { Readiness } from '../shared/shutdown.ts';
import { type AnalysisSettings, FaceAnalysis } from './face-analysis.ts';
import { InferenceServiceImpl } from './inference-service.ts';

/**
 * The largest AnalyzeFace request: core sends the stored photo (JPEG, at most 2048 px: a few MB at most);
 * room is left for a 12-megapixel camera JPEG sent by a tool or a benchmark.
 */
export const INFERENCE_READ_MAX_BYTES = 16 * 1024 * 1024;

export async function startInference(
  port: number,
  logger: Logger,
  host?: string,
  settings: AnalysisSettings = {},
  loaded?: FaceAnalysis,
  readiness?: Readiness,
): Promise<RunningServer> {
  const analysis = loaded ?? (await FaceAnalysis.load(settings));
  // Aborted on close: an open health Watch ends at once instead of holding the server to its grace period.
  const stopping = new AbortController();
  const server = await startServer({
    port,
    host,
    logger,
    readMaxBytes: INFERENCE_READ_MAX_BYTES,
    routes: (router) => {
      router.service(InferenceService, new InferenceServiceImpl(analysis));
      // SERVING only while the models answer a self-check (a released or broken model is NOT_SERVING), and
      // not once the process is shutting down.
      const serving = async () => !readiness?.draining && (await analysis.selfCheck());
      router.service(
        Health,
        new HealthService([InferenceService.typeName], serving, { stopping: stopping.signal }),
      );
    },
  });
  return {
    port: server.port,
    close: (forceAfterMs?: number) => {
      stopping.abort();
      return server.close(forceAfterMs);
    },
  };
}
