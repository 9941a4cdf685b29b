/**
 * For a describe of real processes against a database the test holds a lock in: a migrated test
 * database holding the test catalog, the processes' environment, and a connection of the test's own to
 * take locks on; the processes added to `running` are stopped after the describe.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { upsertProducts } from '../../services/catalog/catalog-store.ts';
import { openDatabase } from '../../services/core/db/orm.ts';
import { createTestDatabase } from './database.ts';
import { TEST_CATALOG } from './fixtures.ts';
import { type RunningProcess, startProcess, stopAll } from './processes.ts';

export function heldDatabase(name: string) {
  let dir: string | undefined;
  const held = {
    running: new Set<RunningProcess>(),
    env: {} as NodeJS.ProcessEnv,
    lock: undefined as unknown as pg.Client,
  };
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), `skinmatch-${name}-`));
    const db = await createTestDatabase();
    held.env = {
      DATA_DIR: dir,
      DATABASE_URL: db.url,
      TOKEN_PEPPER: randomBytes(32).toString('hex'),
      ALTCHA_HMAC_KEY: randomBytes(32).toString('hex'),
    };
    held.running.add(await startProcess('migrate', held.env));
    const orm = await openDatabase(db.url);
    await upsertProducts(orm.em.fork(), TEST_CATALOG);
    await orm.close();
    held.lock = new pg.Client({ connectionString: db.url });
    await held.lock.connect();
  });
  after(async () => {
    await held.lock?.end();
    await stopAll(held.running);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return held;
}
