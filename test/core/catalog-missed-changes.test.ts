/**
 * Catalog changes no announcement reached core (catalog-store.ts), against a real PostgreSQL: one announced
 * while core's listening connection was down (an import cut off by a database failure announces as the
 * database comes back, or not at all), and writes that never announce (an import killed outright commits
 * quiet batches). Before, core served the deleted products until the next announced change.
 */
import assert from 'node:assert/strict';
import pg from 'pg';
import { pino } from 'pino';
import { LiveCatalog } from '../../services/catalog/catalog-store.ts';
import { deriveProduct } from '../../services/catalog/derive.ts';
import { migrate, type Orm, openDatabase } from '../../services/core/db/orm.ts';
import { Notifications } from '../../services/shared/notifications.ts';
import { createTestDatabase } from '../support/database.ts';
import { rawProduct } from '../support/raw-product.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const INSERTED = `select n_tup_ins::int as inserted from pg_stat_user_tables where relid = 'products'::regclass`;

describe('catalog changes core was not told about', function () {
  this.timeout(120_000);
  let db: { url: string; drop: () => Promise<void> };
  let orm: Orm;
  let notifications: Notifications | undefined;
  let live: LiveCatalog | undefined;
  let lines: any[];
  const sql = (text: string, values: unknown[] = []) => orm.em.getConnection().execute(text, values);

  beforeEach(async () => {
    db = await createTestDatabase();
    orm = await openDatabase(db.url);
    await migrate(orm);
    lines = [];
    const derived = deriveProduct(rawProduct('template', { ingredients: 'Aqua, Glycerin' }));
    await sql(
      `insert into products (product_id, name, demo, derived, updated_at)
       select id, 'Demo ' || id, true, jsonb_set(?::jsonb, '{product_id}', to_jsonb(id))::json, now()
       from (select 'demo-' || i as id from generate_series(1, 320) as i) as ids`,
      [JSON.stringify(derived)],
    );
    // PostgreSQL counts a backend's writes in its statistics up to 10 s after they commit (PGSTAT_IDLE_INTERVAL,
    // this pool's connection stays open): wait for these 320, or their late count would read as a new write.
    const started = performance.now();
    while (Number((await sql(INSERTED))[0]?.inserted ?? 0) < 320) {
      if (performance.now() - started > 30_000) assert.fail('the inserts never reached the statistics');
      await sleep(200);
    }
  });
  afterEach(async () => {
    live?.stop();
    live = undefined;
    await notifications?.close();
    notifications = undefined;
    await orm.close();
    await db.drop();
  });

  const start = async (checkMs: number) => {
    notifications = new Notifications(db.url, ['catalog_changed'], pino({ level: 'silent' }));
    await notifications.start();
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    live = new LiveCatalog(orm, logger, checkMs);
    await live.start(notifications);
    assert.equal(live.index.size, 320);
    return live;
  };

  /** Waits until core's catalog holds `size` products (fails after `ms`). */
  const untilSize = async (catalog: LiveCatalog, size: number, ms: number) => {
    const started = performance.now();
    while (catalog.index.size !== size) {
      if (performance.now() - started > ms)
        assert.fail(`still ${catalog.index.size} products after ${ms} ms`);
      await sleep(50);
    }
  };

  it('a change announced while the listening connection was down is served once core listens again', async () => {
    const catalog = await start(60 * 60_000); // no periodic look: only listening again can tell
    const terminated = await sql(
      `select pg_terminate_backend(pid) from pg_stat_activity
       where datname = current_database() and query = 'listen catalog_changed'`,
    );
    assert.equal(terminated.length, 1, 'core’s listening connection was found');
    // Announced by the trigger at once, while core has no listening connection (it tries again after 1 s).
    await sql('delete from products where demo');
    await untilSize(catalog, 0, 10_000);
    assert.ok(
      lines.some((line) => line.msg.startsWith('listening again')),
      'the reload says why it was made',
    );
  });

  it('writes that announce nothing (an import killed outright) are served within the periodic look', async () => {
    const catalog = await start(500);
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      // As an import's batch writes: its transaction is quiet (migration 0019), and the import that would
      // have announced the change at its end was killed.
      await client.query('begin');
      await client.query('set local skinmatch.catalog_quiet = on');
      await client.query('delete from products where demo');
      await client.query('commit');
    } finally {
      await client.end(); // as the killed import's connection ends
    }
    await untilSize(catalog, 0, 20_000);
    assert.ok(
      lines.some((line) => line.msg === 'products were written without an announcement: the catalog reloads'),
    );
    // Nothing written since: no more loads.
    const loads = lines.filter((line) => line.msg === 'catalog loaded').length;
    await sleep(3000);
    assert.equal(lines.filter((line) => line.msg === 'catalog loaded').length, loads);
  });
});
