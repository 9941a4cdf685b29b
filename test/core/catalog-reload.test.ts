/**
 * Core's catalog loads against a real PostgreSQL (catalog-store.ts): one at a time, changes meanwhile
 * coalesced into one load after it, so the catalog served ends as the database's latest; a failed load
 * keeps the last loaded catalog serving; an import announces itself once, not once per batch.
 */
import assert from 'node:assert/strict';
import pg from 'pg';
import { pino } from 'pino';
import { importRecords } from '../../services/catalog/catalog-import.ts';
import { LiveCatalog } from '../../services/catalog/catalog-store.ts';
import { deriveProduct } from '../../services/catalog/derive.ts';
import { migrate, type Orm, openDatabase } from '../../services/core/db/orm.ts';
import { Notifications } from '../../services/shared/notifications.ts';
import { createTestDatabase } from '../support/database.ts';
import { rawProduct } from '../support/raw-product.ts';

/** Enough products that a full load takes a second or more: an older load can still be running. */
const LARGE = 40_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('core’s catalog loads', function () {
  this.timeout(180_000);
  let db: { url: string; drop: () => Promise<void> };
  let orm: Orm;
  let notifications: Notifications | undefined;
  let live: LiveCatalog | undefined;
  let lines: any[];
  const sql = <T>(text: string, values: unknown[] = []) => orm.em.getConnection().execute<T[]>(text, values);
  const logged = (msg: string) => lines.filter((line) => line.msg === msg);

  beforeEach(async () => {
    db = await createTestDatabase();
    orm = await openDatabase(db.url);
    await migrate(orm);
    lines = [];
  });
  afterEach(async () => {
    live?.stop();
    live = undefined;
    await notifications?.close();
    notifications = undefined;
    await orm.close();
    await db.drop();
  });

  /**
   * Core's catalog, listening from now on (not to the writes made before); `checkMs`, how often it asks
   * whether products were written without a word (catalog-missed-changes.test.ts tests that check).
   */
  const start = async (checkMs?: number) => {
    notifications = new Notifications(db.url, ['catalog_changed'], pino({ level: 'silent' }));
    await notifications.start();
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    live = new LiveCatalog(orm, logger, checkMs);
    await live.start(notifications);
    return live;
  };

  /** `n` products written in one statement (ids `${prefix}-000001`…), from one derived document. */
  const insertMany = async (prefix: string, n: number) => {
    const derived = deriveProduct(rawProduct('template', { ingredients: 'Aqua, Glycerin, Niacinamide' }));
    await sql(
      `insert into products (product_id, name, derived, updated_at)
       select id, 'Product ' || id, jsonb_set(?::jsonb, '{product_id}', to_jsonb(id))::json, now()
       from (select ? || '-' || lpad(i::text, 6, '0') as id from generate_series(1, ?) as i) as ids`,
      [JSON.stringify(derived), prefix, n],
    );
  };

  const until = async (what: string, done: () => boolean | Promise<boolean>, ms = 60_000) => {
    for (const deadline = Date.now() + ms; !(await done()); await sleep(20)) {
      if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    }
  };

  /** Every load asked for has finished: none for twice the longest load took (3 s at least). */
  const untilQuiet = async () => {
    let loads = -1;
    await until(
      'no load finishes for a while',
      async () => {
        const done = logged('catalog loaded');
        if (done.length === loads) return true;
        loads = done.length;
        await sleep(Math.max(3000, 2 * Math.max(...done.map((line) => line.ms))));
        return false;
      },
      240_000,
    );
  };

  /** Whether a load is reading the products (its one statement is running). */
  const reading = async () =>
    (
      await sql<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity where query = 'select derived from products'
         and state = 'active'`,
      )
    )[0]!.n > 0;

  /** Each load's [start, end] in ms, from its `catalog loaded` line. */
  const loadSpans = () => logged('catalog loaded').map((line) => [line.time - line.ms, line.time] as const);

  it('a change while a slow load runs: one load after it, never two at once, and the latest catalog wins', async () => {
    await insertMany('big', LARGE);
    // Only the announcements: past 30 s (a loaded machine) the check for unannounced writes would add a
    // load of its own when the last one read PostgreSQL's write counters before they were flushed.
    const catalog = await start(60 * 60 * 1000);
    assert.equal(catalog.index.size, LARGE);

    // A change: its load reads the whole large catalog. While that load runs, the catalog shrinks to one
    // product and more changes arrive.
    const rename = (name: string) =>
      sql(
        `update products set derived = jsonb_set(derived::jsonb, '{name}', to_jsonb(?::text))::json
         where product_id = 'big-000001'`,
        [name],
      );
    await rename('Renamed');
    await until('the load of the large catalog is reading', reading);
    await sql(`delete from products where product_id <> 'big-000001'`);
    for (let i = 0; i < 5; i++) await rename(`Renamed ${i}`);
    await untilQuiet();
    assert.equal(catalog.index.size, 1, 'core serves what the database holds');
    assert.equal(catalog.index.get('big-000001')?.product.name, 'Renamed 4');

    const spans = loadSpans();
    for (let i = 1; i < spans.length; i++) {
      // `ms` is rounded: a millisecond of slack.
      assert.ok(spans[i]![0] >= spans[i - 1]![1] - 1, `load ${i} began before load ${i - 1} ended`);
    }
    // The first load at start, the one the first change began, and one for every change after it.
    assert.deepEqual(
      logged('catalog loaded').map((line) => line.products),
      [LARGE, LARGE, 1],
    );
  });

  it('a full import right after a large one: the withdrawn products are not served', async () => {
    const catalog = await start();
    const line = (product: ReturnType<typeof rawProduct>, i: number) => ({ product, line: i + 1 });
    const big = Array.from({ length: 30_000 }, (_, i) =>
      rawProduct(`w-${String(i).padStart(5, '0')}`, { ingredients: `Aqua, Glycerin, Extract ${i}` }),
    );
    assert.equal((await importRecords(orm.em.fork(), big.map(line))).imported, 30_000);
    await until('a load reads the large catalog', reading);
    const full = await importRecords(orm.em.fork(), [line(big[0]!, 0)], { replace: true, force: true });
    assert.equal(full.withdrawn.length, 29_999);
    await untilQuiet();
    assert.equal(catalog.index.size, 1, 'core serves what the database holds');
    assert.equal(catalog.index.get('w-00001'), undefined);
    assert.equal(catalog.index.get('w-00000')?.product.product_id, 'w-00000');
  });

  it('a load that fails keeps the last loaded catalog serving, says it is stale, and retries', async () => {
    await insertMany('p', 3);
    const catalog = await start();
    assert.equal(catalog.index.size, 3);
    await sql('alter table products rename to products_away');
    await sql(`select pg_notify('catalog_changed', '')`);
    await until('a load failed', () => logged('catalog load failed').length > 0);
    assert.equal(catalog.available, true);
    assert.equal(catalog.state, 'loaded');
    assert.equal(catalog.index.size, 3);
    const [failed] = logged('catalog load failed');
    assert.match(failed.err, /relation "products" does not exist/);
    assert.equal(failed.stale, true);
    assert.equal(failed.serving_products, 3);
    assert.equal(failed.retry_in_ms, 1000);

    await sql('alter table products_away rename to products');
    await sql(`delete from products where product_id = 'p-000003'`);
    await until('the retry loads the catalog', () => catalog.index.size === 2, 10_000);
  });

  it('an import announces the change once, not once per batch', async () => {
    const listener = new pg.Client({ connectionString: db.url });
    await listener.connect();
    let heard = 0;
    listener.on('notification', () => heard++);
    await listener.query('listen catalog_changed');
    try {
      const records = Array.from({ length: 5500 }, (_, i) => ({
        product: rawProduct(`i-${i}`, { ingredients: `Aqua, Glycerin, Extract ${i}` }),
        line: i + 1,
      }));
      const report = await importRecords(orm.em.fork(), records);
      assert.equal(report.imported, 5500);
      // Each announcement waited for (a fixed 500 ms assumed it came within it, which a loaded machine need
      // not), then 500 ms more for any other.
      await until('the import announced', () => heard > 0, 10_000);
      await sleep(500);
      assert.equal(heard, 1);
      // A write that is not an import's batch still announces itself.
      await sql(`update products set name = 'x' where product_id = 'i-1'`);
      await until('the write announced', () => heard > 1, 10_000);
      await sleep(500);
      assert.equal(heard, 2);
    } finally {
      await listener.end();
    }
  });
});
