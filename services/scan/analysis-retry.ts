/**
 * An analysis that fails on our side (inference unreachable, stalled, its stream cut) is tried again, the
 * photo kept, for as long as an outage of inference plausibly lasts: waits doubling from `firstMs` up to
 * `maxMs`, until `windowMs` has passed since the photo's first failed attempt. Only then does the scan fail
 * `analysis_unavailable` (and its photo go). Each try is a fresh job (its job key is the scan's: a newer
 * photo's job replaces it), due after the wait; meanwhile the scan is `queued` at stage `retrying`, its
 * progress the highest reached. graphile-worker's own attempts (its backoff grows to hours) are left for our
 * own faults: a database write that failed.
 */
import type { SqlEntityManager } from '@mikro-orm/postgresql';
import { ANALYZE_TASK, MAX_ANALYSIS_ATTEMPTS } from './photo-intake.ts';

export interface AnalysisRetry {
  /** How long after its first failed attempt a photo is still tried (ANALYSIS_RETRY_WINDOW_S). */
  readonly windowMs: number;
  readonly firstMs: number;
  readonly maxMs: number;
}

export const DEFAULT_ANALYSIS_RETRY: AnalysisRetry = { windowMs: 30 * 60_000, firstMs: 2000, maxMs: 30_000 };

/** An analysis job's payload (photo-intake.ts writes the first; `retryLater` the next ones). */
export interface AnalysisJob {
  readonly run_id: string;
  readonly traceparent?: string;
  readonly request_id?: string;
  /** Attempts that failed on our side so far, and when the first did (epoch ms). */
  readonly failed?: number;
  readonly failing_since?: number;
}

/** The next try's job and its wait, or undefined once the window is over: the scan fails. */
export function nextTry(job: AnalysisJob, retry: AnalysisRetry, now = Date.now()) {
  const failed = (job.failed ?? 0) + 1;
  const since = job.failing_since ?? now;
  const delayMs = Math.min(retry.maxMs, retry.firstMs * 2 ** (failed - 1));
  if (now - since >= retry.windowMs) return undefined;
  return { job: { ...job, failed, failing_since: since }, delayMs };
}

/** Queues the next try after `delayMs` and shows the scan waiting for it, in one transaction. */
export async function retryLater(sql: SqlEntityManager, job: AnalysisJob, delayMs: number) {
  await sql.transactional(async (tx) => {
    const t = tx as SqlEntityManager;
    await t.execute(
      `select graphile_worker.add_job(?, ?::json, run_at := now() + make_interval(secs => ?),
         job_key := ?, max_attempts := ?)`,
      [ANALYZE_TASK, JSON.stringify(job), delayMs / 1000, job.run_id, MAX_ANALYSIS_ATTEMPTS],
    );
    await t.execute(
      `update scans set status = 'queued', stage = 'retrying', updated_at = now()
       where id = ? and status in ('queued', 'analyzing')`,
      [job.run_id],
    );
  });
}
