/**
 * Deleting scans: the scan row goes with everything keyed by it (photo, match allowance: `on delete
 * cascade`), and its analysis job goes off the queue in the same transaction. Every deletion takes this
 * way: delete_skin_scan, the upload page's delete, an account's scan deleted on /mcp/account, the account's
 * deletion, the purge.
 * An analysis already running when its scan goes is stopped (watchDeletion).
 */
import type { EntityManager } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/postgresql';
import type { Notifications } from '../shared/notifications.ts';

/** How often a running analysis looks whether its scan still exists, besides each change notification. */
const DELETION_RECHECK_MS = 2000;

/**
 * Takes the analysis jobs of scans being deleted off the queue, in the caller's transaction, with
 * graphile-worker's remove_job by job key (the run id, photo-intake.ts): a job still waiting is removed,
 * so it no longer counts in the backlog that pauses admissions (admissions-governor.ts); one already
 * running is not retried, and what it finds is written nowhere (the scan and its photo are gone).
 */
export async function removeAnalysisJobs(sql: SqlEntityManager, runIds: readonly string[]): Promise<void> {
  if (runIds.length === 0) return;
  await sql.execute('select graphile_worker.remove_job(key) from jsonb_array_elements_text(?::jsonb) key', [
    JSON.stringify(runIds),
  ]);
}

/** Deletes the scans `where` names, and their jobs, in the caller's transaction; how many there were. */
async function deleteScansWhere(
  sql: SqlEntityManager,
  where: string,
  params: readonly unknown[],
): Promise<number> {
  const rows = await sql.execute<{ id: string }[]>(`delete from scans where ${where} returning id`, [
    ...params,
  ]);
  await removeAnalysisJobs(
    sql,
    rows.map((row) => row.id),
  );
  return rows.length;
}

/** Deletes one scan (of `accountId` when given) and its job; whether there was such a scan. */
export async function deleteOneScan(em: EntityManager, runId: string, accountId?: string): Promise<boolean> {
  return em.transactional(async (tx) => {
    const sql = tx as SqlEntityManager;
    const deleted =
      accountId === undefined
        ? await deleteScansWhere(sql, 'id = ?', [runId])
        : await deleteScansWhere(sql, 'id = ? and account_id = ?', [runId, accountId]);
    return deleted > 0;
  });
}

/** Deletes every scan of the account and their jobs, before the account itself goes (account-store.ts). */
export async function deleteAccountScans(sql: SqlEntityManager, accountId: string): Promise<void> {
  await deleteScansWhere(sql, 'account_id = ?', [accountId]);
}

/**
 * Aborts `deleted` when the scan is deleted while it is analysed (delete_skin_scan, the account's deletion,
 * the purge): the inference call ends then, rather than finishing for a photo nobody keeps (its outcome
 * would be written nowhere: finishAnalysis finds no photo). Looks at each change notification of the scan,
 * and every DELETION_RECHECK_MS for one lost on a reconnect, until `ended`.
 */
export async function watchDeletion(
  em: EntityManager,
  notifications: Notifications,
  runId: string,
  ended: AbortSignal,
  deleted: AbortController,
) {
  try {
    while (!ended.aborted) {
      await notifications.next('scan_changed', runId, DELETION_RECHECK_MS, ended);
      if (ended.aborted) return;
      const rows = await (em as SqlEntityManager).execute('select 1 from scans where id = ?', [runId]);
      if (rows.length === 0) return deleted.abort();
    }
  } catch {
    // The database is out of reach: the analysis meets it too, and ends as it does then.
  }
}
