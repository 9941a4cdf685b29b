/**
 * `node test/bench/catalog-load-storage.ts`: core's catalog load (LiveCatalog.reload) of 100 000 imported
 * products with `derived` stored as jsonb and as json (migration 0013), in turns on the same rows, so that
 * a busy machine's drift falls on both alike. Prints wall time and CPU per product of this process and of
 * PostgreSQL for each.
 */
import { pino } from 'pino';
import { importRecords } from '../../services/catalog/catalog-import.ts';
import { LiveCatalog } from '../../services/catalog/catalog-store.ts';
import { migrate, openDatabase } from '../../services/core/db/orm.ts';
import { createTestDatabase, stopTestDatabaseServer } from '../support/database.ts';
import { generateCatalog } from './generated-catalog.ts';
import { postgresCpuMs } from './load.ts';

const db = await createTestDatabase();
const orm = await openDatabase(db.url);
try {
  await migrate(orm);
  const records = generateCatalog(100_000).map((product, i) => ({ product, line: i + 1 }));
  await importRecords(orm.em.fork(), records);
  const live = new LiveCatalog(orm, pino({ level: 'silent' }));
  const sql = orm.em.getConnection();
  for (let round = 0; round < 4; round++) {
    for (const type of ['jsonb', 'json']) {
      await sql.execute(`alter table products alter column derived type ${type} using derived::${type}`);
      await sql.execute('vacuum analyze products');
      const t = performance.now();
      const own = process.cpuUsage();
      const pg0 = postgresCpuMs('.data/test-pg');
      await live.reload();
      const u = process.cpuUsage(own);
      console.log(
        `${type.padEnd(6)} ${((performance.now() - t) / 1000).toFixed(2)} s  node ${((u.user + u.system) / 100_000).toFixed(0)} µs  PostgreSQL ${(((postgresCpuMs('.data/test-pg') - pg0) * 1000) / 100_000).toFixed(0)} µs per product`,
      );
    }
  }
} finally {
  await orm.close();
  await db.drop();
  await stopTestDatabaseServer();
}
