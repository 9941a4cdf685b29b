/**
 * Plain statements on MikroORM's own `pg` pool, for the hot paths where the ORM's layers (query building,
 * identity map, hydration) cost more than the query itself — see docs/data-path.md. Sharing the pool
 * keeps one queue and one connection limit (`pool.max`) for both kinds of statement.
 *
 * The pool keeps MikroORM's type parsers, which leave timestamps as strings: plain reads select them as
 * epoch milliseconds (`epochMs`) and build the Date themselves.
 */
import type { EntityManager } from '@mikro-orm/core';
import type { PostgreSqlConnection, SqlEntityManager } from '@mikro-orm/postgresql';
import type { Pool, PoolClient } from 'pg';
import type { Orm } from './orm.ts';

export type PlainSql = Pool;

export function plainSql(source: Orm | EntityManager): Promise<PlainSql> {
  const em = 'em' in source ? source.em : source;
  return ((em as SqlEntityManager).getConnection() as PostgreSqlConnection).getNativeClient();
}

/** A timestamptz column as whole epoch milliseconds (float8, which `pg` parses to a number), as `alias`. */
export function epochMs(column: string, alias: string): string {
  return `floor(extract(epoch from ${column}) * 1000)::float8 as "${alias}"`;
}

/**
 * Runs `work` in a transaction on one client of the pool, with its statements' values sent as bound
 * parameters, never in the statement's text, which PostgreSQL shows in pg_stat_activity and writes to its
 * log for a statement that fails, is cancelled or is slow (the ORM's statements bind theirs too:
 * bound-params.ts). Writes of photos, token hashes and scores go this way, without the ORM's layers.
 */
export async function plainTransaction<T>(
  pool: PlainSql,
  work: (client: PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  // A connection lost between two statements fails the next one; the pool listens only to idle clients,
  // and without a listener of our own the loss would be an uncaught error.
  const lost = () => {};
  client.on('error', lost);
  let broken: Error | undefined;
  try {
    await client.query('begin');
    const result = await work(client);
    await client.query('commit');
    return result;
  } catch (err) {
    // A client that cannot roll back is discarded, not reused.
    broken = await client.query('rollback').then(
      () => undefined,
      (rollbackErr: Error) => rollbackErr,
    );
    throw err;
  } finally {
    client.off('error', lost);
    client.release(broken);
  }
}
