/**
 * The purge: a scheduled graphile-worker job (cron, so one run per tick across every core replica) that
 * deletes guest scans whose token has expired and scans still waiting for their photo past the abandonment
 * bound, with everything that refers to them. Photos, match allowances and any other row keyed by the scan
 * go by `on delete cascade`; the scan's queued analysis job is removed from the queue in the same
 * transaction. A scan an account owns has no token expiry (the account keeps it until it deletes it), so
 * only the abandonment bound applies to it.
 */
import type { SqlEntityManager } from '@mikro-orm/postgresql';
import { type CronItem, parseCronItems } from 'graphile-worker';

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

/** Deletes what is due at `settings.now()`; returns how many scans went, by reason. */
export async function purgeScans(em: SqlEntityManager, settings: PurgeSettings): Promise<PurgeCounts> {
  const now = settings.now();
  const abandonedBefore = new Date(now.getTime() - settings.abandonedAfterMs);
  let expired = 0;
  let abandoned = 0;
  for (;;) {
    const deleted = await em.transactional(async (tx) => {
      const sql = tx as SqlEntityManager;
      const rows = await sql.execute<{ id: string; expired: boolean }[]>(
        `delete from scans where id in (
           select id from scans
           where (account_id is null and expires_at <= ?)
              or (status = 'awaiting_upload' and created_at <= ?)
           limit ${BATCH} for update skip locked)
         returning id, (account_id is null and expires_at <= ?) as expired`,
        [now, abandonedBefore, now],
      );
      if (rows.length > 0) {
        // A job still waiting is removed; one running is stopped from retrying and finds no photo.
        await sql.execute(
          'select graphile_worker.remove_job(key) from jsonb_array_elements_text(?::jsonb) key',
          [JSON.stringify(rows.map((row) => row.id))],
        );
      }
      return rows;
    });
    for (const row of deleted) {
      if (row.expired) expired++;
      else abandoned++;
    }
    if (deleted.length < BATCH) return { expired, abandoned };
  }
}
