/**
 * The free guest allowance: one match per scan. Consuming it is a row in scan_matches whose primary key is
 * the scan id, written in the same transaction that decides the answer, so two concurrent first calls give
 * products to exactly one of them, and a failure before the answer is committed consumes nothing.
 *
 * Plain statements on the shared pool (plain-sql.ts): through MikroORM's `transactional` the same begin,
 * insert and commit cost a fork, client-side interpolation and a fresh parse of the insert on every call.
 * The answer is ranked before the allowance is consumed and nothing else is written with it, so the insert
 * alone is the transaction that decides: one prepared statement, one round trip to PostgreSQL
 * (docs/data-path.md). Only when something must run between the insert and its commit (`afterConsume`:
 * tests simulate a crash there) is it an explicit transaction: `begin` and the insert in one message (a
 * simple query of two statements, its values escaped by `pg`), the hook, then `commit`.
 */
import { escapeLiteral } from 'pg';
import { isForeignKeyViolation } from '../core/db/pg-errors.ts';
import { epochMs, type PlainSql } from '../core/db/plain-sql.ts';
import { NOT_FOUND_MESSAGE, serviceError } from '../shared/errors.ts';

export const INCLUDED_MATCHES = 1;

export interface Consumption {
  readonly runId: string;
  /** The products answered, best first: get_skin_scan shows them again (used-match.ts). */
  readonly productIds: readonly string[];
  readonly engineVersion: string;
  /** The skin type the person stated, which the scores depend on; null when none was. */
  readonly skinType: string | null;
}

const values = (c: Consumption) => [c.runId, JSON.stringify(c.productIds), c.engineVersion, c.skinType];

/** `begin` and the insert that consumes, as one simple query: its second result says whether it did. */
export function consumeStatement(consumption: Consumption): string {
  const [runId, productIds, engineVersion, skinType] = values(consumption).map((value) =>
    value === null ? 'null' : escapeLiteral(value),
  );
  return `begin; insert into scan_matches (run_id, consumed_at, product_ids, engine_version, skin_type)
  values (${runId}::uuid, now(), ${productIds}::jsonb, ${engineVersion}, ${skinType}) on conflict (run_id) do nothing returning run_id`;
}
const USED = 'select count(*)::int as used from scan_matches where run_id = $1';
const CONSUME = `insert into scan_matches (run_id, consumed_at, product_ids, engine_version, skin_type)
  values ($1::uuid, now(), $2::jsonb, $3, $4) on conflict (run_id) do nothing returning run_id`;

/** True when this call consumed the allowance; false when it was already used. */
export async function consumeAllowance(
  sql: PlainSql,
  consumption: Consumption,
  afterConsume?: () => void | Promise<void>,
): Promise<boolean> {
  if (!afterConsume) {
    const { rowCount } = await sql
      .query({ name: 'consume_allowance', text: CONSUME, values: values(consumption) })
      .catch(scanGone);
    return rowCount === 1;
  }
  const client = await sql.connect();
  // A connection lost between two statements (while the hook runs, say) fails the next statement; the
  // pool listens only to idle clients, and without a listener of our own it would be an uncaught error.
  const lost = () => {};
  client.on('error', lost);
  let failure: Error | undefined;
  try {
    const results = (await client.query(consumeStatement(consumption))) as unknown as { rowCount: number }[];
    if (results[1]?.rowCount !== 1) {
      await client.query('rollback');
      return false;
    }
    await afterConsume();
    await client.query('commit');
    return true;
  } catch (err) {
    // Roll back what this transaction wrote; a client that cannot is discarded, not reused.
    failure = await client.query('rollback').then(
      () => undefined,
      (rollbackErr: Error) => rollbackErr,
    );
    scanGone(err);
  } finally {
    client.off('error', lost);
    client.release(failure);
  }
}

/**
 * The scan was deleted (by its holder, the person's page, its account's deletion or the purge) after its
 * token was checked: the allowance row's foreign key finds no scan. That is the caller's `not_found`, as
 * a moment later, not a server fault to retry.
 */
function scanGone(err: unknown): never {
  throw isForeignKeyViolation(err) ? serviceError('not_found', NOT_FOUND_MESSAGE) : err;
}

export async function matchesUsed(sql: PlainSql, runId: string): Promise<number> {
  const { rows } = await sql.query<{ used: number }>({ name: 'matches_used', text: USED, values: [runId] });
  return rows[0]?.used ?? 0;
}

/** A scan's used match as stored: when, the products answered (best first), and what they were scored with. */
export interface StoredMatch {
  readonly usedAt: Date;
  readonly productIds: readonly string[];
  readonly engineVersion: string;
  readonly skinType: string | null;
}

const MATCH = `select ${epochMs('consumed_at', 'usedAt')}, product_ids as "productIds",
    engine_version as "engineVersion", skin_type as "skinType"
  from scan_matches where run_id = $1`;

/** The scan's used match, or null while it is unused: one primary-key read, as matchesUsed's. */
export async function findMatch(sql: PlainSql, runId: string): Promise<StoredMatch | null> {
  const { rows } = await sql.query<Omit<StoredMatch, 'usedAt'> & { usedAt: number }>({
    name: 'scan_match',
    text: MATCH,
    values: [runId],
  });
  const row = rows[0];
  return row ? { ...row, usedAt: new Date(row.usedAt) } : null;
}
