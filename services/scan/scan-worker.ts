/**
 * The scan worker: graphile-worker jobs on the same PostgreSQL, one per uploaded photo. Each job streams
 * the photo through the analyzer and records every step on the scan, so get_skin_scan shows live progress
 * and WatchScan streams it. The final state and the photo's deletion commit together. When analysis cannot
 * run, it is tried again with capped backoff for as long as an inference outage plausibly lasts
 * (analysis-retry.ts); only after that does the scan fail with `analysis_unavailable` — a scan is never
 * left in `analyzing`. Progress shown never goes back for the same photo: a new attempt shows the highest
 * percentage reached (and its stage) until it passes it.
 */
import { EventEmitter } from 'node:events';
import type { EntityManager } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/postgresql';
import { context, SpanKind, trace } from '@opentelemetry/api';
import {
  type JobHelpers,
  parseCronItems,
  Logger as QueueLogger,
  run,
  runMigrations,
  type TaskList,
  type WorkerEvents,
} from 'graphile-worker';
import { ACCOUNT_PURGE_TASK, accountPurgeCron, purgeUnusedAccounts } from '../account/account-purge.ts';
import type { Orm } from '../core/db/orm.ts';
import { plainSql, plainTransaction } from '../core/db/plain-sql.ts';
import { ANALYSIS_UNAVAILABLE } from '../shared/failure-messages.ts';
import type { Logger } from '../shared/logger.ts';
import { inferenceDuration, scanStageDuration, secondsSince } from '../shared/metrics.ts';
import type { Notifications } from '../shared/notifications.ts';
import { contextFromTraceparent, endSpan, tracer, withRequestId } from '../shared/telemetry.ts';
import {
  type AnalysisJob,
  type AnalysisRetry,
  DEFAULT_ANALYSIS_RETRY,
  nextTry,
  retryLater,
} from './analysis-retry.ts';
import type { Analyzer } from './analyzer.ts';
import { createPatientPool } from './patient-pool.ts';
import { ANALYZE_TASK } from './photo-intake.ts';
import { watchDeletion } from './scan-deletion.ts';
import { PURGE_TASK, type PurgeSettings, purgeCron, purgeScans } from './scan-purge.ts';
import { WorkerLiveness } from './worker-liveness.ts';

/** How often each core looks for jobs left locked by a core that died (worker-liveness.ts). */
const LIVENESS_CHECK_MS = 5000;

export interface ScanWorkerOptions {
  readonly orm: Orm;
  readonly databaseUrl: string;
  /** Face analysis; without it this worker leaves photos queued for a core that has one. */
  readonly analyzer?: Analyzer;
  /** The scans' change notifications: a running analysis whose scan is deleted is stopped. */
  readonly notifications?: Notifications;
  readonly logger: Logger;
  readonly concurrency?: number;
  /** The scheduled purges: expired and abandoned scans, and accounts that hold nothing (its clock). */
  readonly purge: PurgeSettings;
  /**
   * On stop, how long running jobs may go on before they are aborted and handed back to the queue, for
   * another replica to take (graphile-worker's default: 5 s).
   */
  readonly handBackAfterMs?: number;
  /** How long, and how often, an analysis failed on our side is tried again. */
  readonly retry?: AnalysisRetry;
}

/** Creates graphile-worker's own tables, so photos can be enqueued before any worker runs. */
export async function prepareQueue(databaseUrl: string, logger: Logger): Promise<void> {
  await runMigrations({ connectionString: databaseUrl, logger: queueLogger(logger) });
}

/** graphile-worker's log lines into our logger (its payloads are job ids and task names, never tokens). */
function queueLogger(logger: Logger): QueueLogger {
  return new QueueLogger((scope) => (level, message) => {
    const log = logger.child({ queue: scope.label ?? 'worker' });
    if (level === 'error') log.error(message);
    else if (level === 'warning') log.warn(message);
    else log.debug(message);
  });
}

export async function startScanWorker(options: ScanWorkerOptions): Promise<ScanWorker> {
  const { orm, analyzer, logger, notifications } = options;
  const taskList: TaskList = {
    [PURGE_TASK]: async () => {
      const counts = await purgeScans(orm.em.fork() as SqlEntityManager, options.purge);
      if (counts.expired + counts.abandoned + counts.orphanJobs > 0) {
        logger.info(counts, 'purged expired and abandoned scans');
      }
    },
    [ACCOUNT_PURGE_TASK]: async () => {
      const accounts = await purgeUnusedAccounts(orm.em.fork() as SqlEntityManager, options.purge.now());
      if (accounts > 0) logger.info({ accounts }, 'purged accounts that hold nothing');
    },
  };
  if (analyzer) {
    taskList[ANALYZE_TASK] = async (payload, helpers) => {
      const job = payload as AnalysisJob;
      // The analysis continues the trace of the upload that queued it, under that request's id.
      let parent = contextFromTraceparent(job.traceparent);
      if (job.request_id) parent = withRequestId(parent, job.request_id);
      const span = tracer.startSpan(
        'scan.analyze',
        { kind: SpanKind.CONSUMER, attributes: { 'skinmatch.attempt': (job.failed ?? 0) + 1 } },
        parent,
      );
      try {
        await context.with(trace.setSpan(parent, span), () =>
          analyzeScan(orm.em.fork(), analyzer, job, helpers, {
            logger,
            notifications,
            retry: options.retry ?? DEFAULT_ANALYSIS_RETRY,
          }),
        );
        endSpan(span);
      } catch (err) {
        endSpan(span, err);
        throw err;
      }
    };
  }
  // The worker's own pool, ended only after the runner has stopped: graphile-worker ends a pool it made
  // without waiting and drops its error handlers at once, so a connection closed by the server while that
  // pool is still ending (a database dropped, a restart) would be an uncaught error.
  // While PostgreSQL restarts, taking a connection waits for it (patient-pool.ts).
  const { pool, giveUp } = createPatientPool({
    connectionString: options.databaseUrl,
    max: (options.concurrency ?? 2) + 2,
  });
  const lost = (err: Error) => logger.warn({ err: err.message }, 'scan worker: database connection lost');
  pool.on('error', lost); // an idle connection
  pool.on('connect', (client) => client.on('error', lost)); // a connection in use
  // This pool's advisory lock tells every core it is alive; its jobs are freed as soon as it is not.
  const liveness = new WorkerLiveness({
    databaseUrl: options.databaseUrl,
    logger,
    intervalMs: LIVENESS_CHECK_MS,
  });
  const events: WorkerEvents = new EventEmitter();
  const held: Promise<void>[] = [];
  events.on('pool:create', ({ workerPool }) => {
    held.push(
      liveness
        .hold(workerPool.id)
        .catch((err: Error) => logger.warn({ err: err.message }, 'liveness: taking the lock failed')),
    );
  });
  const runner = await run({
    pgPool: pool,
    concurrency: options.concurrency ?? 2,
    noHandleSignals: true,
    logger: queueLogger(logger),
    parsedCronItems: [...purgeCron(), ...parseCronItems([accountPurgeCron()])],
    preset: {
      worker: {
        pollInterval: 500,
        ...(options.handBackAfterMs ? { gracefulShutdownAbortTimeout: options.handBackAfterMs } : {}),
      },
    },
    events,
    taskList,
  });
  await Promise.all(held);
  liveness.start();
  return {
    stop: async () => {
      giveUp();
      await runner.stop();
      await liveness.stop();
      await pool.end();
    },
  };
}

/**
 * The running worker: stop() takes no new job, lets running jobs finish — those still running after
 * `handBackAfterMs` are aborted and handed back to the queue — then closes its connections.
 */
export interface ScanWorker {
  stop(): Promise<void>;
}

async function analyzeScan(
  em: EntityManager,
  analyzer: Analyzer,
  job: AnalysisJob,
  helpers: JobHelpers,
  { logger, notifications, retry }: { logger: Logger; notifications?: Notifications; retry: AnalysisRetry },
) {
  const runId = job.run_id;
  const sql = em as SqlEntityManager;
  const photos = await sql.execute<{ image: Buffer; uploaded_at: Date }[]>(
    'select image, uploaded_at from scan_photos where run_id = ?',
    [runId],
  );
  const photo = photos[0];
  if (!photo) return; // deleted, or already analysed by an earlier attempt
  const { image } = photo;
  scanStageDuration.observe(
    { stage: 'queued' },
    Math.max(0, Date.now() - new Date(photo.uploaded_at).getTime()) / 1000,
  );
  // Each stage lasts from its first progress event to the next stage's (the last: to the outcome).
  let stage = { name: '', started: performance.now() };
  const nextStage = (name: string) => {
    if (name === stage.name) return;
    if (stage.name) scanStageDuration.observe({ stage: stage.name }, secondsSince(stage.started));
    stage = { name, started: performance.now() };
  };
  const analysing = performance.now();
  let measured = false;
  // The inference call ends once: with an outcome (complete, failed) or without one (error).
  const analysed = (outcome: string) => {
    if (measured) return;
    measured = true;
    nextStage('recording');
    inferenceDuration.observe({ outcome }, secondsSince(analysing));
  };
  const finish = async (outcome: Outcome) => {
    analysed(outcome.status);
    await finishAnalysis(sql, runId, photo.uploaded_at, outcome);
    nextStage('');
  };
  const ended = new AbortController();
  const deleted = new AbortController();
  if (notifications) void watchDeletion(em.fork(), notifications, runId, ended.signal, deleted);
  const stop = helpers.abortSignal ? AbortSignal.any([helpers.abortSignal, deleted.signal]) : deleted.signal;
  try {
    await setProgress(sql, runId, 'decoding', 0);
    let lastPercent = -1;
    for await (const event of analyzer.analyze(image, stop)) {
      if (event.kind === 'progress') {
        nextStage(event.stage);
        if (event.percent === lastPercent) continue;
        lastPercent = event.percent;
        await setProgress(sql, runId, event.stage, event.percent);
      } else if (event.kind === 'result') {
        await finish({
          status: 'complete',
          scores: JSON.stringify(event.scores),
          concerns: JSON.stringify(event.concerns),
          models: JSON.stringify(event.models ?? {}),
        });
        return;
      } else {
        await finish({ status: 'failed', failureReason: event.reason });
        return;
      }
    }
    throw new Error('the analysis stream ended without an outcome');
  } catch (err) {
    analysed('error');
    if (deleted.signal.aborted) {
      logger.info({ run_id: runId }, 'scan deleted during its analysis: analysis stopped');
      return;
    }
    if (helpers.abortSignal?.aborted) {
      await handBack(sql, job, helpers);
      logger.info({ run_id: runId }, 'analysis interrupted by shutdown: handed back to the queue');
      return;
    }
    const next = nextTry(job, retry);
    logger.warn(
      {
        run_id: runId,
        attempt: (job.failed ?? 0) + 1,
        err: (err as Error).message,
        ...(next
          ? { retry_in_ms: next.delayMs }
          : { gave_up_after_ms: Date.now() - (job.failing_since ?? Date.now()) }),
      },
      'analysis failed',
    );
    if (next) await retryLater(sql, next.job, next.delayMs);
    else await finish({ status: 'failed', failureReason: ANALYSIS_UNAVAILABLE });
  } finally {
    ended.abort();
  }
}

/**
 * The worker is shutting down and aborted this analysis: a fresh job for the same photo (its job key makes
 * graphile-worker retire the running one), due at once and with every attempt left, since nothing failed;
 * the scan shows `queued` again, with the progress it had reached. This job then ends normally.
 */
async function handBack(sql: SqlEntityManager, job: AnalysisJob, helpers: JobHelpers) {
  await sql.transactional(async (tx) => {
    const t = tx as SqlEntityManager;
    await t.execute(`select graphile_worker.add_job(?, ?::json, job_key := ?, max_attempts := ?)`, [
      ANALYZE_TASK,
      JSON.stringify(job),
      job.run_id,
      helpers.job.max_attempts,
    ]);
    await t.execute(
      `update scans set status = 'queued', updated_at = now() where id = ? and status = 'analyzing'`,
      [job.run_id],
    );
  });
}

/**
 * The scan under analysis at `percent`; a percentage below the one shown (an attempt after a failed one,
 * or after a hand-back) keeps what is shown, stage and all, until this attempt passes it.
 */
function setProgress(sql: SqlEntityManager, runId: string, stage: string, percent: number) {
  const shown = Math.max(0, Math.min(100, Math.round(percent)));
  return sql.execute(
    `update scans set status = 'analyzing', stage = case when ? >= progress then ? else stage end,
       progress = greatest(progress, ?), updated_at = now()
     where id = ? and status in ('queued', 'analyzing')`,
    [shown, stage, shown, runId],
  );
}

interface Outcome {
  readonly status: 'complete' | 'failed';
  readonly scores?: string;
  readonly concerns?: string;
  readonly models?: string;
  readonly failureReason?: string;
}

/**
 * The final state and the photo's deletion, in one transaction. If the person uploaded a newer photo
 * meanwhile, this outcome belongs to a photo that no longer counts: nothing is written, the newer photo's
 * own job decides. The scores go as bound parameters, never in the statement's text (plain-sql.ts).
 */
async function finishAnalysis(sql: SqlEntityManager, runId: string, uploadedAt: Date, outcome: Outcome) {
  await plainTransaction(await plainSql(sql), async (client) => {
    // The scan's row first, as every deletion of the scan (which then deletes the photo) and storePhoto
    // take them: with the photo first, a delete_skin_scan arriving between the two statements deadlocked
    // with this one, and PostgreSQL failed one of them — often the person's deletion.
    const scan = await client.query('select 1 from scans where id = $1 for no key update', [runId]);
    if (scan.rowCount === 0) return;
    const deleted = await client.query('delete from scan_photos where run_id = $1 and uploaded_at = $2', [
      runId,
      uploadedAt,
    ]);
    if (deleted.rowCount === 0) return;
    await client.query(
      `update scans set status = $1, stage = '', progress = $2, scores = $3, concerns = $4, analysis_models = $5,
         failure_reason = $6, completed_at = now(), updated_at = now() where id = $7`,
      [
        outcome.status,
        outcome.status === 'complete' ? 100 : 0,
        outcome.scores ?? null,
        outcome.concerns ?? null,
        outcome.models ?? null,
        outcome.failureReason ?? null,
        runId,
      ],
    );
  });
}
