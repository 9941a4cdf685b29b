/**
 * Accounts that hold nothing. Signing in at an upstream provider finds or creates the person's account
 * (account-store.ts) before they consent on /authorize or choose to save on /save/:id; someone who then
 * declines, closes the page or never saves must leave nothing behind. An account holds nothing when no
 * scan is saved to it and no grant, code or token of it is live; its identities and sign-in sessions
 * are not something the person chose to keep.
 *
 * - Declining on the consent page deletes the account at once when it holds nothing but its sign-in
 *   sessions and interactions (`forgetUnusedAccount`, called by the façade after the client is told).
 * - The account purge, a scheduled graphile-worker job like the scan purge, deletes every account that
 *   holds nothing, has no live sign-in session or interaction either, and last signed in more than
 *   UNUSED_ACCOUNT_AFTER_MS ago: an abandoned sign-in leaves nothing after its session ends (a day).
 *
 * A sign-in, a consent or a save racing the deletion must not end with a grant or a scan that refers to a
 * deleted account. So each deletion first locks the account rows it may delete (`for update`, which waits
 * for, or skips, a sign-in bumping `signed_in_at` and any insert of a row that refers to the account), and
 * only then, in a fresh statement that sees everything committed before the lock, deletes those that still
 * hold nothing. A row inserted after the lock waits for it and then fails its foreign key; it is never
 * left pointing to nothing.
 */
import type { SqlEntityManager } from '@mikro-orm/postgresql';
import type { CronItem } from 'graphile-worker';

export const ACCOUNT_PURGE_TASK = 'purge_unused_accounts';

/**
 * How long after its last sign-in an account that holds nothing is kept. Longer than the sign-in's own
 * cookies (ten minutes) and its interaction (an hour); a live sign-in session (a day) keeps it too.
 */
export const UNUSED_ACCOUNT_AFTER_MS = 60 * 60 * 1000;
/** Every ten minutes, as the scan purge. */
const SCHEDULE = '*/10 * * * *';
const BATCH = 500;

/** The oauth_state models that are a sign-in in progress rather than something granted. */
const SIGN_IN_MODELS = `('Session', 'Interaction')`;

/** `a` holds nothing: no scan, and no live record but, unless `signInCounts`, its sign-in sessions. */
const holdsNothing = (signInCounts: boolean) => `
  not exists (select 1 from scans s where s.account_id = a.id)
  and not exists (select 1 from oauth_state o where o.account_id = a.id and o.expires_at > ?
    ${signInCounts ? '' : `and o.model not in ${SIGN_IN_MODELS}`})`;

export const accountPurgeCron = (): CronItem => ({
  task: ACCOUNT_PURGE_TASK,
  match: SCHEDULE,
  identifier: ACCOUNT_PURGE_TASK,
  // A missed tick is not worth catching up: the next one deletes the same rows.
  options: { backfillPeriod: 0, maxAttempts: 1, jobKey: ACCOUNT_PURGE_TASK, jobKeyMode: 'replace' },
});

/** Deletes the account if it holds nothing but sign-in sessions; true when it went. */
export async function forgetUnusedAccount(
  em: SqlEntityManager,
  accountId: string,
  now: Date,
): Promise<boolean> {
  return em.transactional(async (tx) => {
    const locked = await lock(tx as SqlEntityManager, 'a.id = ?', [accountId]);
    return (await deleteHoldingNothing(tx as SqlEntityManager, locked, false, now)).length === 1;
  });
}

/** Deletes, a batch per transaction, the accounts that hold nothing and last signed in before `now - bound`. */
export async function purgeUnusedAccounts(
  em: SqlEntityManager,
  now: Date,
  boundMs = UNUSED_ACCOUNT_AFTER_MS,
): Promise<number> {
  const before = new Date(now.getTime() - boundMs);
  let total = 0;
  for (;;) {
    const deleted = await em.transactional(async (tx) => {
      const sql = tx as SqlEntityManager;
      const locked = await lock(sql, `a.signed_in_at <= ? and ${holdsNothing(true)}`, [before, now]);
      return (await deleteHoldingNothing(sql, locked, true, now)).length;
    });
    total += deleted;
    if (deleted < BATCH) return total;
  }
}

/** Locks the accounts `condition` selects, skipping those another transaction is signing in or using. */
async function lock(sql: SqlEntityManager, condition: string, params: unknown[]): Promise<string[]> {
  const rows = await sql.execute<{ id: string }[]>(
    `select a.id from accounts a where ${condition} limit ${BATCH} for update skip locked`,
    params,
  );
  return rows.map((row) => row.id);
}

/** Deletes those of the locked accounts that still hold nothing, with their rate-limit counters. */
async function deleteHoldingNothing(
  sql: SqlEntityManager,
  ids: string[],
  signInCounts: boolean,
  now: Date,
): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await sql.execute<{ id: string }[]>(
    `delete from accounts a where a.id = any(?::uuid[]) and ${holdsNothing(signInCounts)} returning a.id`,
    [`{${ids.join(',')}}`, now],
  );
  const gone = rows.map((row) => row.id);
  if (gone.length > 0) {
    // The façade's rate-limit counters of the account (keys `budget:account:<id>`, facade/rate-limits.ts).
    await sql.execute('delete from rate_limits where key like any(?::text[])', [
      `{${gone.map((id) => `"%:account:${id}"`).join(',')}}`,
    ]);
  }
  return gone;
}
