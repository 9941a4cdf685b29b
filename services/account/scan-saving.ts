/**
 * Saving a guest scan to an account, the rules behind the save page (`save_url`, `/save/:id`). Only the
 * browser that consented on the scan's upload page may see or save it: a party holding just the link must
 * not attach someone else's scores to its own account. The checks run in an order that tells such a party
 * nothing: an unknown, expired or deleted scan is `not_found`; any other browser is `not_consenting_browser`
 * whatever the scan's state; only then does the state count (`scan_not_ready`, another account's scan).
 */
import type { EntityManager } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/postgresql';
import { SaveState } from '../../gen/skinmatch/v1/account_pb.ts';
import { isConsentingBrowser } from '../intake/browser-secret.ts';
import { serviceError } from '../shared/errors.ts';

export const SAVE_NOT_FOUND = 'No scan with this run_id.';
export const SAVE_NOT_THIS_BROWSER = 'Only the browser that agreed on the upload page can save this scan.';
export const SAVE_NOT_READY = 'The scan is not complete; only a complete scan can be saved.';
export const SAVED_ELSEWHERE = 'This scan is already saved to another account.';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface SaveRequest {
  readonly runId: string;
  readonly browserSecret: string;
  /** The signed-in account; '' before sign-in. */
  readonly accountId: string;
}

interface SavableRow {
  readonly browser_hash: string | null;
  readonly account_id: string | null;
  readonly status: string;
  readonly expired: boolean;
}

/** Whether the calling browser may see the scan, and whom it belongs to; `lock` holds the row until commit. */
export async function checkSavable(
  em: EntityManager,
  pepper: Buffer,
  now: Date,
  req: SaveRequest,
  lock = false,
): Promise<SaveState> {
  if (req.runId === '') throw serviceError('scan_required', 'run_id is required.');
  if (!UUID.test(req.runId))
    throw serviceError('invalid_input', 'run_id must be a UUID.', { field: 'run_id' });
  if (req.accountId !== '' && !UUID.test(req.accountId)) {
    throw serviceError('invalid_input', 'account_id must be a UUID.', { field: 'account_id' });
  }
  const rows = await (em as SqlEntityManager).execute<SavableRow[]>(
    `select browser_hash, account_id, status, expires_at <= ? as expired from scans where id = ?
     ${lock ? 'for update' : ''}`,
    [now, req.runId.toLowerCase()],
  );
  const row = rows[0];
  // Computed whatever the row, so that an unknown scan costs the same work as a known one.
  const consenting = isConsentingBrowser(pepper, req.browserSecret, row?.browser_hash ?? null);
  if (!row || row.expired) throw serviceError('not_found', SAVE_NOT_FOUND);
  if (!consenting) throw serviceError('not_consenting_browser', SAVE_NOT_THIS_BROWSER);
  if (row.status !== 'complete') throw serviceError('scan_not_ready', SAVE_NOT_READY);
  if (row.account_id === null) return SaveState.UNSAVED;
  return row.account_id === req.accountId.toLowerCase()
    ? SaveState.SAVED_TO_THIS_ACCOUNT
    : SaveState.SAVED_TO_ANOTHER_ACCOUNT;
}

/** Attaches the scan to the account; true when this call did it, false when it was already there. */
export async function saveScan(
  em: EntityManager,
  pepper: Buffer,
  now: Date,
  req: SaveRequest,
): Promise<boolean> {
  return em.transactional(async (tx) => {
    const state = await checkSavable(tx, pepper, now, req, true);
    if (state === SaveState.SAVED_TO_ANOTHER_ACCOUNT) {
      throw serviceError('saved_to_another_account', SAVED_ELSEWHERE);
    }
    if (state === SaveState.SAVED_TO_THIS_ACCOUNT) return false;
    await (tx as SqlEntityManager).execute('update scans set account_id = ? where id = ?', [
      req.accountId.toLowerCase(),
      req.runId.toLowerCase(),
    ]);
    return true;
  });
}
