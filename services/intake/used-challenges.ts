/**
 * Each solved challenge is good for one consent. Its id goes into `used_challenges` in one statement that
 * either inserts it or finds it there already, so two requests racing with the same solution cannot both
 * pass. Rows are kept until the challenge would have expired anyway, then purged.
 */
import type { PlainSql } from '../core/db/plain-sql.ts';
import type { SolvedChallenge } from './bot-challenge.ts';

/** True when this is the solution's first use (and records it); false when it was used before. */
export async function useChallenge(sql: PlainSql, solved: SolvedChallenge): Promise<boolean> {
  const { rowCount } = await sql.query(
    'insert into used_challenges (id, expires_at) values ($1, $2) on conflict (id) do nothing',
    [solved.id, solved.expiresAt],
  );
  return rowCount === 1;
}

export async function purgeUsedChallenges(sql: PlainSql): Promise<number> {
  const { rowCount } = await sql.query('delete from used_challenges where expires_at <= now()');
  return rowCount ?? 0;
}
