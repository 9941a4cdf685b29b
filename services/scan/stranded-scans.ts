/**
 * Scans whose analysis can never run again. The scan worker records the outcome of an analysis's last
 * attempt itself (`analysis_unavailable`), but when that write cannot reach the database — PostgreSQL
 * restarting during the last attempt — graphile-worker still marks the job failed for good, and the scan
 * would show `analyzing` and `poll` until its token expired. A photo waiting for analysis with no job that
 * will ever run it (none, or one out of attempts, unlocked and untouched for a while) is such a scan: it
 * fails with `analysis_unavailable`, as after a last failed attempt, and its photo is deleted with it.
 */
import type pg from 'pg';
import { ANALYSIS_UNAVAILABLE } from '../shared/failure-messages.ts';
import { ANALYZE_TASK } from './photo-intake.ts';

/**
 * Seconds a photo without a runnable job waits before its scan fails: longer than the moment between a
 * dead pool's job being unlocked and its fresh job being added (worker-liveness.ts).
 */
export const STRANDED_AFTER_SECONDS = 15;

const FAIL_STRANDED = `
  with stranded as (
    select p.run_id, p.uploaded_at from scan_photos p join scans on scans.id = p.run_id
    where p.uploaded_at < now() - make_interval(secs => $1)
      and not exists (
        select 1 from graphile_worker.jobs j
        where j.task_identifier = $2 and j.key = p.run_id::text
          and (j.attempts < j.max_attempts or j.locked_at is not null
               or j.updated_at >= now() - make_interval(secs => $1)))
    for no key update of scans skip locked
  ), removed as (
    delete from scan_photos p using stranded s
    where p.run_id = s.run_id and p.uploaded_at = s.uploaded_at returning p.run_id
  )
  update scans set status = 'failed', stage = '', progress = 0, scores = null, concerns = null,
    analysis_models = null, failure_reason = $3, completed_at = now(), updated_at = now()
  from removed where scans.id = removed.run_id and scans.status in ('queued', 'analyzing')
  returning scans.id`;

/**
 * Fails the scans no job will ever analyse; answers their ids. Each scan's row is locked before its photo, as
 * every deletion (the scan, then its photo by cascade) and the scan worker take them: a photo locked first
 * deadlocked with a deletion arriving before the scan's update. A scan locked elsewhere is left to a later run.
 */
export async function failStrandedScans(queries: pg.Pool): Promise<string[]> {
  const { rows } = await queries.query<{ id: string }>(FAIL_STRANDED, [
    STRANDED_AFTER_SECONDS,
    ANALYZE_TASK,
    ANALYSIS_UNAVAILABLE,
  ]);
  return rows.map((row) => row.id);
}
