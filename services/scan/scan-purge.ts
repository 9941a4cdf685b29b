/**
 * The purge: a scheduled graphile-worker job (cron, so one run per tick across every core replica) that
 * deletes guest scans whose token has expired and scans still waiting for their photo past the abandonment
 * bound, with everything that refers to them. Photos, match allowances and any other row keyed by the scan
 * go by `on delete cascade`; the scan's queued analysis job is removed from the queue in the same
 * transaction. A scan an account owns has no token expiry (the account keeps it until it deletes it), so
 * only the abandonment bound applies to it.
 *
 * Each run also takes the analysis jobs whose scan is gone. A scan deleted while its analysis runs cannot
 * take the locked job with it (graphile-worker's remove_job only retires it: no key, no attempt left), and
 * the running analysis normally ends it; when that analysis never ends — its core dies, its last write
 * fails — the retired job, its payload naming the deleted scan, would stay in graphile-worker's table for
 * good. The same holds for a retry or hand-back queued at the moment the scan went.
 */
import type { SqlEntityManager } from '@mikro-orm/postgresql';
import { type CronItem, parseCronItems } from 'graphile-worker';
import { ANALYZE_TASK } from './photo-intake.ts';
import { removeAnalysisJobs } from './scan-deletion.ts';

export const PURGE_TASK = 'purge_scans';

/** Every ten minutes: an expired scan outlives its token by at most that much. */
const PURGE_SCHEDULE = '*/10 * * * *';
/** Scans deleted per statement, so one run never holds a long lock on many rows. */
const BATCH = 500;

export interface PurgeSettings {
  /** The clock (tests move it forward). */
  readonly now: () => Date;
  /** A scan still awaiting its photo this long after it started is deleted. */
  readonly abandonedAfterMs: number;
}

export interface PurgeCounts {
  readonly expired: number;
  readonly abandoned: number;
  /** Analysis jobs left naming a deleted scan. */
  readonly orphanJobs: number;
}

export const purgeCron = () =>
  parseCronItems([
    {
      task: PURGE_TASK,
      match: PURGE_SCHEDULE,
      identifier: PURGE_TASK,
      // A missed tick is not worth catching up: the next one deletes the same rows.
      options: { backfillPeriod: 0, maxAttempts: 1, jobKey: PURGE_TASK, jobKeyMode: 'replace' },
    } satisfies CronItem,
  ]);

/** What makes a scan due: a guest token expired, or no photo long after the start. */
const DUE = {
  // Uses scans_guest_expiry_idx (migration 0012b).
  expired: 'account_id is null and expires_at <= ?',
  // Uses scans_awaiting_upload_idx (migration 0012b).
  abandoned: "status = 'awaiting_upload' and created_at <= ?",
} as const;

/** Deletes what is due at `settings.now()`; returns how many scans went, by reason. */
export async function purgeScans(em: SqlEntityManager, settings: PurgeSettings): Promise<PurgeCounts> {
  const now = settings.now();
  return {
    expired: await purgeWhere(em, DUE.expired, now),
    abandoned: await purgeWhere(em, DUE.abandoned, new Date(now.getTime() - settings.abandonedAfterMs)),
    orphanJobs: await purgeOrphanJobs(em),
  };
}

/**
 * Analysis jobs no worker holds whose scan no longer exists, through graphile-worker's complete_jobs (which
 * never deletes a job a live worker holds: that worker ends it). The payload is read from its private table:
 * the public `jobs` view leaves payloads out.
 */
const ORPHAN_JOBS = `
  select count(*)::int as taken from graphile_worker.complete_jobs(array(
    select j.id from graphile_worker._private_jobs j
    join graphile_worker._private_tasks t on t.id = j.task_id
    where t.identifier = ? and j.locked_at is null
      and not exists (select 1 from scans s where s.id = (j.payload->>'run_id')::uuid)))`;

async function purgeOrphanJobs(em: SqlEntityManager): Promise<number> {
  const [row] = await em.execute<{ taken: number }[]>(ORPHAN_JOBS, [ANALYZE_TASK]);
  return row?.taken ?? 0;
}

/** Deletes, a batch per transaction, the scans `condition` selects; their queued jobs go in the same one. */
async function purgeWhere(em: SqlEntityManager, condition: string, before: Date): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await em.transactional(async (tx) => {
      const sql = tx as SqlEntityManager;
      const rows = await sql.execute<{ id: string }[]>(
        `delete from scans where id in (
           select id from scans where ${condition} limit ${BATCH} for update skip locked)
         returning id`,
        [before],
      );
      await removeAnalysisJobs(
        sql,
        rows.map((row) => row.id),
      );
      return rows.length;
    });
    total += deleted;
    if (deleted < BATCH) return total;
  }
}
