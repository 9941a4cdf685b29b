/** The inference process's server: InferenceService and its own grpc.health.v1, on h2c. */
import { Health } from '../../gen/grpc/health/v1/health_pb.ts';
import { InferenceService } from '../../gen/skinmatch/inference/v1/inference_pb.ts';
import { HealthService } from '../shared/health.ts';
import type { Logger } from '../shared/logger.ts';
import { type RunningServer, startServer } from '../shared/server.ts';
import type { Readiness } from '../shared/shutdown.ts';
import { type AnalysisSettings, FaceAnalysis } from './face-analysis.ts';
import { InferenceServiceImpl } from './inference-service.ts';
import { InferenceHealth, WorkProgress } from './liveness.ts';

export interface InferenceSettings extends AnalysisSettings {
  /** Work under way that has not moved on for this long is stuck: NOT_SERVING, liveness too (2 min). */
  readonly stallMs?: number;
}

/**
 * The largest AnalyzeFace request: core sends the stored photo (JPEG, at most 2048 px: a few MB at most);
 * room is left for a 12-megapixel camera JPEG sent by a tool or a benchmark.
 */
export const INFERENCE_READ_MAX_BYTES = 16 * 1024 * 1024;

export async function startInference(
  port: number,
  logger: Logger,
  host?: string,
  settings: InferenceSettings = {},
  loaded?: FaceAnalysis,
  readiness?: Readiness,
): Promise<RunningServer> {
  const analysis = loaded ?? (await FaceAnalysis.load(settings));
  const progress = new WorkProgress(settings.stallMs);
  const health = new InferenceHealth(analysis, progress, readiness);
  await health.start();
  // Aborted on close: an open health Watch ends at once instead of holding the server to its grace period.
  const stopping = new AbortController();
  const server = await startServer({
    port,
    host,
    logger,
    readMaxBytes: INFERENCE_READ_MAX_BYTES,
    routes: (router) => {
      router.service(InferenceService, new InferenceServiceImpl(analysis, progress));
      // Answered from state, never waiting behind analyses (liveness.ts): SERVING while the models are
      // loaded and answered their last self-check, the process is not stuck and not shutting down;
      // `liveness` only asks that it is not stuck (the chart's livenessProbe).
      router.service(
        Health,
        new HealthService([InferenceService.typeName], async () => health.serving(), {
          stopping: stopping.signal,
          checks: { readiness: async () => health.serving(), liveness: async () => health.alive() },
        }),
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
