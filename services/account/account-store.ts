/**
 * Accounts in PostgreSQL: find-or-create by upstream identity (marking when it last signed in), read, and
 * delete with everything that refers to the account. Deletion relies on the schema: every table that refers
 * to an account does so with `on delete cascade` (migration 0009), and the counts are taken in the same
 * transaction. The scans are deleted first, explicitly, so that their queued analysis jobs go with them
 * (scan-deletion.ts). Accounts that hold nothing are deleted by account-purge.ts.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/postgresql';
import { isForeignKeyViolation } from '../core/db/pg-errors.ts';
import { deleteAccountScans } from '../scan/scan-deletion.ts';
import { serviceError } from '../shared/errors.ts';

export const ACCOUNT_NOT_FOUND = 'No such account.';

export interface AccountRow {
  readonly id: string;
  readonly createdAt: Date;
  readonly identities: { provider: string; subject: string }[];
}

export interface DeletionCounts {
  accounts: number;
  identities: number;
  scans: number;
  photos: number;
  grants: number;
  tokens: number;
}

const sql = (em: EntityManager) => em as SqlEntityManager;

/**
 * The account's data was deleted after this call found the account (delete_my_service_data from another
 * conversation or page): the row's key to it finds no account. That is the `not_found` the call gets a
 * moment later, not a server fault to retry.
 */
export function accountGone(err: unknown): never {
  throw isForeignKeyViolation(err) ? serviceError('not_found', ACCOUNT_NOT_FOUND) : err;
}

/** The identity's account, created with the identity when this is its first sign-in. */
export async function signIn(
  em: EntityManager,
  provider: string,
  subject: string,
  now: Date,
): Promise<{ accountId: string; created: boolean }> {
  return em.transactional(async (tx) => {
    // Marks the sign-in: the account purge (account-purge.ts) leaves an account alone for a while after
    // it. The row lock waits for a purge deleting the account; then nothing is found, and a new one is made.
    const found = await sql(tx).execute<{ id: string }[]>(
      `update accounts set signed_in_at = ? where id = (
         select account_id from account_identities where provider = ? and subject = ?) returning id`,
      [now, provider, subject],
    );
    if (found[0]) return { accountId: found[0].id, created: false };
    const accountId = randomUUID();
    await sql(tx).execute('insert into accounts (id, created_at, signed_in_at) values (?, now(), ?)', [
      accountId,
      now,
    ]);
    const inserted = await sql(tx).execute<{ account_id: string }[]>(
      `insert into account_identities (provider, subject, account_id, created_at) values (?, ?, ?, now())
       on conflict (provider, subject) do nothing returning account_id`,
      [provider, subject, accountId],
    );
    if (inserted.length === 1) return { accountId, created: true };
    // A concurrent first sign-in of the same identity won: use its account, drop ours.
    await sql(tx).execute('delete from accounts where id = ?', [accountId]);
    const winner = await sql(tx).execute<{ account_id: string }[]>(
      'select account_id from account_identities where provider = ? and subject = ?',
      [provider, subject],
    );
    return { accountId: winner[0]!.account_id, created: false };
  });
}

export async function findAccount(em: EntityManager, accountId: string): Promise<AccountRow | undefined> {
  const rows = await sql(em).execute<{ id: string; created_at: Date }[]>(
    'select id, created_at from accounts where id = ?',
    [accountId],
  );
  if (!rows[0]) return undefined;
  const identities = await sql(em).execute<{ provider: string; subject: string }[]>(
    'select provider, subject from account_identities where account_id = ? order by created_at',
    [accountId],
  );
  return { id: rows[0].id, createdAt: new Date(rows[0].created_at), identities };
}

/** Deletes the account and all that refers to it; counts what went. Nothing to delete counts zeros. */
export async function deleteAccount(em: EntityManager, accountId: string): Promise<DeletionCounts> {
  return em.transactional(async (tx) => {
    const rows = await sql(tx).execute<Record<string, string>[]>(
      `select
         (select count(*) from accounts where id = ?) as accounts,
         (select count(*) from account_identities where account_id = ?) as identities,
         (select count(*) from scans where account_id = ?) as scans,
         (select count(*) from scan_photos ph join scans s on s.id = ph.run_id where s.account_id = ?) as photos,
         (select count(*) from oauth_state where account_id = ? and model = 'Grant') as grants,
         (select count(*) from oauth_state where account_id = ? and model <> 'Grant') as tokens`,
      Array(6).fill(accountId),
    );
    // Its scans first, so that their analysis jobs go off the queue with them.
    await deleteAccountScans(sql(tx), accountId);
    await sql(tx).execute('delete from accounts where id = ?', [accountId]);
    // The façade's rate-limit counters of the account (keys `budget:account:<id>`, facade/rate-limits.ts).
    await sql(tx).execute('delete from rate_limits where key like ?', [`%:account:${accountId}`]);
    const counts = rows[0]!;
    return {
      accounts: Number(counts.accounts),
      identities: Number(counts.identities),
      scans: Number(counts.scans),
      photos: Number(counts.photos),
      grants: Number(counts.grants),
      tokens: Number(counts.tokens),
    };
  });
}
