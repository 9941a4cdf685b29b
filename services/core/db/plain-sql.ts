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
import type { Pool } from 'pg';
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
