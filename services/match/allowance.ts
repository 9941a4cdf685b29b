/**
 * The free guest allowance: one match per scan. Consuming it is a row in scan_matches whose primary key is
 * the scan id, written in the same transaction that decides the answer, so two concurrent first calls give
 * products to exactly one of them, and a failure before the answer is committed consumes nothing.
 */
import type { EntityManager } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/postgresql';

export const INCLUDED_MATCHES = 1;

export interface Consumption {
  readonly runId: string;
  readonly productIds: readonly string[];
  readonly engineVersion: string;
}

/** True when this call consumed the allowance; false when it was already used. */
export async function consumeAllowance(
  em: EntityManager,
  consumption: Consumption,
  afterConsume: () => void | Promise<void> = () => {},
): Promise<boolean> {
  return em.transactional(async (tx) => {
    const rows = await (tx as SqlEntityManager).execute<{ run_id: string }[]>(
      `insert into scan_matches (run_id, consumed_at, product_ids, engine_version) values (?, now(), ?, ?)
       on conflict (run_id) do nothing returning run_id`,
      [consumption.runId, JSON.stringify(consumption.productIds), consumption.engineVersion],
    );
    if (rows.length === 0) return false;
    await afterConsume();
    return true;
  });
}

export async function matchesUsed(em: EntityManager, runId: string): Promise<number> {
  const rows = await (em as SqlEntityManager).execute<{ used: string }[]>(
    'select count(*) as used from scan_matches where run_id = ?',
    [runId],
  );
  return Number(rows[0]?.used ?? 0);
}
