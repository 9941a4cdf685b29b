/**
 * Photos per scan per hour, counted in the database so every core replica sees the same count. A fixed
 * window starting at the first attempt: one upsert counts the attempt and returns the count, so concurrent
 * uploads cannot slip past the limit together. Every attempt counts, refused files included.
 */
import type { PlainSql } from '../core/db/plain-sql.ts';
import { serviceError } from '../shared/errors.ts';

const WINDOW_MS = 60 * 60 * 1000;

export async function countUpload(sql: PlainSql, runId: string, now: Date, perHour: number): Promise<void> {
  const windowStart = new Date(now.getTime() - WINDOW_MS);
  const { rows } = await sql.query<{ attempts: number; started: number }>(
    `insert into intake_uploads (run_id, window_started_at, attempts) values ($1, $2, 1)
     on conflict (run_id) do update set
       window_started_at = case when intake_uploads.window_started_at <= $3 then $2
         else intake_uploads.window_started_at end,
       attempts = case when intake_uploads.window_started_at <= $3 then 1 else intake_uploads.attempts + 1 end
     returning attempts, floor(extract(epoch from window_started_at) * 1000)::float8 as started`,
    [runId, now, windowStart],
  );
  const { attempts, started } = rows[0]!;
  if (attempts <= perHour) return;
  const retryAfterSeconds = Math.max(1, Math.ceil((started + WINDOW_MS - now.getTime()) / 1000));
  throw serviceError(
    'rate_limited',
    `Too many photos for this scan; wait ${retryAfterSeconds} s before trying again.`,
    { retry_after_seconds: String(retryAfterSeconds) },
  );
}
