/**
 * Core's view of inference between analyses: every `INFERENCE_CHECK_MS` it asks inference's
 * grpc.health.v1 Check (on the transport the scan worker's AnalyzeFace calls use) and keeps the answer in
 * `skinmatch_inference_serving` (1 SERVING, 0 anything else: not answering, NOT_SERVING, shutting down).
 * Each change is one log line: a warning when inference stops serving — uploads are still taken, and their
 * analyses wait, retried, and fail as `analysis_unavailable` only after ANALYSIS_RETRY_WINDOW_S — and an info line when it serves again.
 * Without it, every inference pod down showed only once a person's photo had failed. Once core itself is
 * shutting down it stops asking (inference may be stopping with it).
 */
import { type Client, createClient, type Transport } from '@connectrpc/connect';
import { Health, HealthCheckResponse_ServingStatus as Status } from '../../gen/grpc/health/v1/health_pb.ts';
import type { Logger } from '../shared/logger.ts';
import { inferenceServing } from '../shared/metrics.ts';
import type { Readiness } from '../shared/shutdown.ts';

/** How often core asks; a check that has not answered within its interval counts as not serving. */
export const INFERENCE_CHECK_MS = 5000;

export interface InferenceWatchOptions {
  readonly transport: Transport;
  readonly logger: Logger;
  readonly readiness?: Readiness;
  readonly intervalMs?: number;
}

/** Starts checking at once; the returned function stops it. */
export function watchInference(options: InferenceWatchOptions): () => void {
  const { logger, readiness } = options;
  const intervalMs = options.intervalMs ?? INFERENCE_CHECK_MS;
  const health = createClient(Health, options.transport);
  let serving: boolean | undefined;
  let checking = false;
  const check = async () => {
    if (checking || readiness?.draining) return;
    checking = true;
    const failure = await whyNotServing(health, intervalMs);
    checking = false;
    if (readiness?.draining) return;
    inferenceServing.set(failure === undefined ? 1 : 0);
    if ((failure === undefined) === serving) return;
    if (failure !== undefined)
      logger.warn(
        { err: failure },
        'inference does not serve: analyses wait until it does (retried, then analysis_unavailable)',
      );
    else if (serving === false) logger.info('inference serves again');
    serving = failure === undefined;
  };
  void check();
  const timer = setInterval(() => void check(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** Undefined when inference answers SERVING, else why not. */
function whyNotServing(health: Client<typeof Health>, timeoutMs: number): Promise<string | undefined> {
  return health.check({}, { timeoutMs }).then(
    ({ status }) =>
      status === Status.SERVING
        ? undefined
        : `inference answers ${status === Status.NOT_SERVING ? 'NOT_SERVING' : status}`,
    (err: Error) => err.message,
  );
}
