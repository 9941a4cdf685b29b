/** The inference process's server: InferenceService and its own grpc.health.v1, on h2c. */
import { Health } from '../../gen/grpc/health/v1/health_pb.ts';
import { InferenceService } from '../../gen/skinmatch/inference/v1/inference_pb.ts';
import { HealthService } from '../shared/health.ts';
import type { Logger } from '../shared/logger.ts';
import { type RunningServer, startServer } from '../shared/server.ts';
import type { Readiness } from '../shared/shutdown.ts';
import { type AnalysisSettings, FaceAnalysis } from './face-analysis.ts';
import { InferenceServiceImpl } from './inference-service.ts';

export async function startInference(
  port: number,
  logger: Logger,
  host?: string,
  settings: AnalysisSettings = {},
  loaded?: FaceAnalysis,
  readiness?: Readiness,
): Promise<RunningServer> {
  const analysis = loaded ?? (await FaceAnalysis.load(settings));
  return startServer({
    port,
    host,
    logger,
    routes: (router) => {
      router.service(InferenceService, new InferenceServiceImpl(analysis));
      // SERVING only while the models answer a self-check (a released or broken model is NOT_SERVING), and
      // not once the process is shutting down.
      const serving = async () => !readiness?.draining && (await analysis.selfCheck());
      router.service(Health, new HealthService([InferenceService.typeName], serving));
    },
  });
}
