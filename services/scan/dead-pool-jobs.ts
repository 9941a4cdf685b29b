/**
 * What becomes of the jobs of a worker pool that died (worker-liveness.ts found its lock gone). A crash is
 * not a failed analysis, so it uses up no attempt: graphile-worker counted one when the job was taken, and
 * it is given back. Crashes are counted on the photo instead (`scan_photos.analysis_crashes`), because a
 * photo that makes core die — out of memory, an abort — would otherwise be taken again and again, by
 * every replica in turn, forever. After MAX_ANALYSIS_CRASHES its scan fails with `photo_unprocessable`
 * (the person is asked for another photo), the photo is deleted and its job removed.
 *
 * A pool that dies with several analyses under way is counted against each of their photos: the innocent
 * ones are handed back at random moments over the next JITTER_SECONDS, so they are not taken again together
 * with the culprit, and an innocent photo is very unlikely to share MAX_ANALYSIS_CRASHES crashes with it.
 */
import type pg from 'pg';
import { PHOTO_UNPROCESSABLE } from '../shared/failure-messages.ts';
import { ANALYZE_TASK } from './photo-intake.ts';

/** Crashes while analysing one photo before its scan fails. */
export const MAX_ANALYSIS_CRASHES = 3;
/** A crashed analysis is taken again within this many seconds, at a random moment. */
const JITTER_SECONDS = 10;
/** The advisory lock that lets one core at a time hand dead pools' jobs back (each crash counted once). */
const HAND_BACK_LOCK = [0x5c1b, 0] as const;

/** The analyses the dead pools held, taken before they are unlocked. */
const ANALYSES = `
  select id from graphile_worker.jobs
  where locked_by = any($1::text[]) and task_identifier = $2 and key is not null`;

/**
 * Their scans' rows, before any photo: in the order every deletion (the scan, then its photo by cascade) and
 * the scan worker take them, or a deletion arriving between the crash count and the failing deadlocked with
 * it. Sorted, so that two cores handing back never lock in opposite orders.
 */
const LOCK_SCANS = `
  select 1 from scans s join graphile_worker.jobs j on j.key = s.id::text
  where j.id = any($1::bigint[]) order by s.id for no key update of s`;

const COUNT_CRASHES = `
  update scan_photos p set analysis_crashes = p.analysis_crashes + 1
  from graphile_worker.jobs j
  where j.id = any($1::bigint[]) and j.key = p.run_id::text
  returning p.run_id::text as run_id, p.analysis_crashes as crashes`;

/** Each crashed analysis gets its attempt back and a moment of its own to run again. */
const RESCHEDULE = `
  select graphile_worker.reschedule_jobs(array[j.id],
    run_at := now() + random() * make_interval(secs => $2),
    attempts := greatest(j.attempts - 1, 0))
  from graphile_worker.jobs j
  where j.id = any($1::bigint[]) and not (j.key = any($3::text[]))`;

const FAIL_SCANS = `
  with removed as (delete from scan_photos where run_id::text = any($1::text[]) returning run_id)
  update scans set status = 'failed', stage = '', progress = 0, scores = null, concerns = null,
    analysis_models = null, failure_reason = $2, completed_at = now(), updated_at = now()
  from removed where scans.id = removed.run_id and scans.status in ('queued', 'analyzing')
  returning scans.id`;

export interface HandedBack {
  /** Scans failed with `photo_unprocessable`. */
  readonly failed: string[];
}

/** Unlocks the jobs of `dead` pools, counts their photos' crashes and fails the scans past the bound. */
export async function handBackDeadPoolJobs(queries: pg.Pool, dead: readonly string[]): Promise<HandedBack> {
  const client = await queries.connect();
  try {
    await client.query('begin');
    await client.query('select pg_advisory_xact_lock($1, $2)', [...HAND_BACK_LOCK]);
    const analyses = (await client.query<{ id: string }>(ANALYSES, [dead, ANALYZE_TASK])).rows.map(
      (r) => r.id,
    );
    await client.query(LOCK_SCANS, [analyses]);
    const counted = await client.query<{ run_id: string; crashes: number }>(COUNT_CRASHES, [analyses]);
    const poisoned = counted.rows.filter((r) => r.crashes >= MAX_ANALYSIS_CRASHES).map((r) => r.run_id);
    await client.query('select graphile_worker.force_unlock_workers($1::text[])', [dead]);
    await client.query(RESCHEDULE, [analyses, JITTER_SECONDS, poisoned]);
    const failed = await client.query<{ id: string }>(FAIL_SCANS, [poisoned, PHOTO_UNPROCESSABLE]);
    await client.query('select graphile_worker.remove_job(key) from unnest($1::text[]) key', [poisoned]);
    await client.query('commit');
    return { failed: failed.rows.map((r) => r.id) };
  } catch (err) {
    await client.query('rollback').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
