/**
 * Automatic admissions: every core replica looks at the analysis queue (graphile-worker's jobs) at an
 * interval and pauses new scans when the backlog passes its upper bound — too many jobs, or the oldest
 * waiting too long — and resumes them only once it is back under the lower bounds, so admissions do not
 * flap around one threshold. The state is the backlog switch in the database (admissions.ts): replicas
 * read the same queue, reach the same verdict and converge on one value.
 */

import type { Orm } from '../core/db/orm.ts';
import type { PlainSql } from '../core/db/plain-sql.ts';
import type { Logger } from '../shared/logger.ts';
import { admissions, setBacklogPaused } from './admissions.ts';
import { ANALYZE_TASK } from './photo-intake.ts';

export interface BacklogBounds {
  /** Pause when more analysis jobs than this are queued or running… */
  readonly pauseQueued: number;
  /** …or when the oldest has waited longer than this. */
  readonly pauseAgeSeconds: number;
  /** Resume only when at most this many are left… */
  readonly resumeQueued: number;
  /** …and the oldest has waited at most this long. */
  readonly resumeAgeSeconds: number;
}

export interface Backlog {
  /** Analysis jobs queued or running (permanently failed ones excluded). */
  readonly queued: number;
  /**
   * Seconds since the oldest of them was enqueued — its photo stored: a try after a failed one is a fresh
   * job (analysis-retry.ts), and the photo has waited since it came; 0 when there is none.
   */
  readonly oldestAgeSeconds: number;
}

export async function analysisBacklog(sql: PlainSql): Promise<Backlog> {
  const { rows } = await sql.query<{ queued: number; age: number }>(
    `select count(*)::int as queued,
       coalesce(extract(epoch from now() - min(least(j.created_at, p.uploaded_at))), 0)::float8 as age
     from graphile_worker.jobs j left join scan_photos p on p.run_id::text = j.key
     where j.task_identifier = $1 and (j.locked_at is not null or j.attempts < j.max_attempts)`,
    [ANALYZE_TASK],
  );
  return { queued: rows[0]!.queued, oldestAgeSeconds: rows[0]!.age };
}

/** Whether the backlog pauses admissions, given whether it does now (the hysteresis). */
export function backlogPauses(pausedNow: boolean, backlog: Backlog, bounds: BacklogBounds): boolean {
  if (pausedNow) {
    return backlog.queued > bounds.resumeQueued || backlog.oldestAgeSeconds > bounds.resumeAgeSeconds;
  }
  return backlog.queued > bounds.pauseQueued || backlog.oldestAgeSeconds > bounds.pauseAgeSeconds;
}

export interface GovernorOptions {
  readonly orm: Orm;
  readonly sql: PlainSql;
  readonly bounds: BacklogBounds;
  readonly intervalMs: number;
  readonly logger: Logger;
  /** Told each reading (metrics): the backlog, and whether the backlog and the operator pause admissions. */
  readonly onReading?: (backlog: Backlog, pausedByBacklog: boolean, pausedByOperator: boolean) => void;
}

export class AdmissionsGovernor {
  readonly #options: GovernorOptions;
  #timer: NodeJS.Timeout | undefined;
  #checking: Promise<void> | undefined;

  constructor(options: GovernorOptions) {
    this.#options = options;
  }

  /** Looks at once, then at each interval: the gauges (onReading) read 0, "paused", until the first look. */
  start(): void {
    const look = () => {
      this.#checking ??= this.check().finally(() => {
        this.#checking = undefined;
      });
    };
    look();
    this.#timer = setInterval(look, this.#options.intervalMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#checking;
  }

  /** One look at the queue; flips the backlog switch when the bounds say so. */
  async check(): Promise<void> {
    const { orm, sql, bounds, logger } = this.#options;
    try {
      const em = orm.em.fork();
      const backlog = await analysisBacklog(sql);
      const state = await admissions(em);
      const pausedNow = state.pausedByBacklog;
      const paused = backlogPauses(pausedNow, backlog, bounds);
      if (paused !== pausedNow) {
        await setBacklogPaused(em, paused);
        const event = paused
          ? 'analysis backlog over its bound: new scans paused'
          : 'analysis backlog cleared: new scans admitted again';
        logger.warn({ queued: backlog.queued, oldest_age_s: Math.round(backlog.oldestAgeSeconds) }, event);
      }
      this.#options.onReading?.(backlog, paused, state.pausedByOperator);
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'reading the analysis backlog failed');
    }
  }
}
