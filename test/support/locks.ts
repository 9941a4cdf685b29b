/** Races made deterministic: waiting until a service's statement waits for a row lock a test holds. */
import type { Orm } from '../../services/core/db/orm.ts';

/**
 * Waits until a statement naming `table` waits for a lock. Asked on the ORM's pool, outside any
 * transaction: within one, pg_stat_activity is a single snapshot and never changes.
 */
export async function untilWaitingOnLock(orm: Orm, table: string): Promise<void> {
  for (let waited = 0; waited < 20_000; waited += 20) {
    const rows = await orm.em
      .getConnection()
      .execute(`select 1 from pg_stat_activity where wait_event_type = 'Lock' and query like ?`, [
        `%${table}%`,
      ]);
    if (rows.length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no statement on ${table} waited for a lock`);
}
