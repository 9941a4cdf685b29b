/**
 * Taking in a photo: in one transaction the photo is stored (replacing an earlier one), the scan goes back
 * to `queued` with its previous outcome cleared, and an analysis job is enqueued. Either all three happen
 * or none: a photo is never stored without a job, nor a job queued without its photo.
 *
 * A complete scan takes no photo (`upload_closed`), decided inside the transaction on the locked row: an
 * analysis completing while a retake is being checked cannot be undone by it.
 */
import type { EntityManager } from '@mikro-orm/core';
import { plainSql, plainTransaction } from '../core/db/plain-sql.ts';
import { NOT_FOUND_MESSAGE, serviceError } from '../shared/errors.ts';
import { currentRequestId, currentTraceparent } from '../shared/telemetry.ts';

export const ANALYZE_TASK = 'analyze_scan';
/**
 * graphile-worker's attempts at one try of an analysis: used up only by a try whose own database writes
 * fail. An analysis that fails on inference's side is tried again as a fresh job (analysis-retry.ts).
 */
export const MAX_ANALYSIS_ATTEMPTS = 5;
export const UPLOAD_CLOSED_MESSAGE = 'This scan is complete; it takes no more photos.';

export async function storePhoto(
  em: EntityManager,
  runId: string,
  image: Uint8Array,
  contentType: string,
  maxAttempts = MAX_ANALYSIS_ATTEMPTS,
) {
  // Bound parameters, not MikroORM's literals: the photo never appears in a statement's text (plain-sql.ts).
  await plainTransaction(await plainSql(em), async (client) => {
    const queued = await client.query(
      `update scans set status = 'queued', stage = '', progress = 0, failure_reason = null, scores = null,
         concerns = null, analysis_models = null, completed_at = null, updated_at = now()
       where id = $1 and status <> 'complete' returning id`,
      [runId],
    );
    if (queued.rowCount === 0) {
      const exists = await client.query('select 1 from scans where id = $1', [runId]);
      if (exists.rowCount === 0) throw serviceError('not_found', NOT_FOUND_MESSAGE);
      throw serviceError('upload_closed', UPLOAD_CLOSED_MESSAGE);
    }
    await client.query(
      `insert into scan_photos (run_id, image, content_type, uploaded_at) values ($1, $2, $3, now())
       on conflict (run_id) do update set image = excluded.image, content_type = excluded.content_type,
         uploaded_at = excluded.uploaded_at, analysis_crashes = 0`,
      [runId, Buffer.from(image.buffer, image.byteOffset, image.byteLength), contentType],
    );
    // job_key: a new photo replaces a job still waiting for the old one. The upload's trace and request
    // id go with the job, so the analysis continues the upload's trace (telemetry.ts).
    await client.query(
      `select graphile_worker.add_job($1, json_strip_nulls(json_build_object('run_id', $2::text,
         'traceparent', $3::text, 'request_id', $4::text)), job_key := $2, max_attempts := $5)`,
      [ANALYZE_TASK, runId, currentTraceparent() ?? null, currentRequestId() ?? null, maxAttempts],
    );
  });
}
