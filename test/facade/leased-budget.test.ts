import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { LeasedBudget, type Queryable } from '../../facade/leased-budget.ts';
import { migrate, openDatabase } from '../../services/core/db/orm.ts';
import { createTestDatabase } from '../support/database.ts';

describe('rate-limit budgets leased from PostgreSQL', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let pools: pg.Pool[];
  const budgets: LeasedBudget[] = [];

  before(async () => {
    db = await createTestDatabase();
    const orm = await openDatabase(db.url);
    await migrate(orm);
    await orm.close();
    pools = [1, 2].map(() => new pg.Pool({ connectionString: db.url, max: 4 }));
  });
  after(async () => {
    for (const budget of budgets) budget.close();
    await Promise.all(pools.map((pool) => pool.end()));
    await db.drop();
  });

  /** A replica's budget on its own pool, counting the statements it sends. */
  const replica = (index: number, points: number, durationSeconds: number, idleMs?: number) => {
    const counted = { statements: 0 };
    const store: Queryable = {
      query: ((...args: Parameters<pg.Pool['query']>) => {
        counted.statements++;
        return (pools[index]!.query as (...a: unknown[]) => unknown)(...args);
      }) as pg.Pool['query'],
    };
    const budget = new LeasedBudget(store, { name: 'calls', points, durationSeconds, idleMs });
    budgets.push(budget);
    return Object.assign(counted, { budget });
  };

  const spend = async (budget: LeasedBudget, key: string, calls: number, concurrency = 1) => {
    const waits: (number | undefined)[] = [];
    for (let done = 0; done < calls; done += concurrency) {
      const batch = Array.from({ length: Math.min(concurrency, calls - done) }, () => budget.consume(key));
      waits.push(...(await Promise.all(batch)));
    }
    return waits;
  };
  const rowPoints = async (key: string) =>
    Number((await pools[0]!.query('select points from rate_limits where key = $1', [key])).rows[0]?.points);
  const granted = (waits: (number | undefined)[]) => waits.filter((wait) => wait === undefined).length;

  it('two replicas called 20 at a time never grant more than the budget, nor refuse more than a lease early, and write once per lease', async () => {
    const [a, b] = [replica(0, 400, 60), replica(1, 400, 60)];
    const [fromA, fromB] = await Promise.all([
      spend(a.budget, '198.51.100.1', 300, 20),
      spend(b.budget, '198.51.100.1', 300, 20),
    ]);
    const total = granted(fromA) + granted(fromB);
    // The largest lease of a 400-point budget is 20 points: the other replica holds at most that unspent.
    assert.ok(total <= 400 && total >= 380, `granted ${total}`);
    for (const wait of [...fromA, ...fromB].filter((w) => w !== undefined)) {
      assert.ok(wait > 55_000 && wait <= 60_000, String(wait));
    }
    assert.ok(a.statements + b.statements < 100, `${a.statements} + ${b.statements} statements`);
  });

  it('points a replica leased and did not spend go back when it is idle: the budget is neither exceeded nor lost', async () => {
    const [a, b] = [replica(0, 40, 60, 150), replica(1, 40, 60, 150)];
    const key = '198.51.100.2';
    assert.equal(granted(await spend(a.budget, key, 10)), 10);
    let total = 10 + granted(await spend(b.budget, key, 40));
    const spent = Date.now();
    assert.ok(total <= 40, String(total));
    // a gives back what it did not spend, once idle (its sweep, then a write): waited for on the row, as a
    // fixed 500 ms assumed the write landed within it, which a loaded machine (PostgreSQL too) need not.
    // b asks the row again once idle itself.
    for (let tries = 0; (await rowPoints(`calls:${key}`)) !== total; tries++) {
      assert.ok(tries < 200, 'a never gave its unspent points back');
      await sleep(50);
    }
    await sleep(Math.max(0, 500 - (Date.now() - spent)));
    total += granted(await spend(b.budget, key, 40));
    assert.equal(total, 40);
  });

  it('a key called now and then takes one point a call, so small budgets count exactly across replicas', async () => {
    const [a, b] = [replica(0, 3, 60), replica(1, 3, 60)];
    const waits = [];
    for (const budget of [a, b, a, b]) waits.push(await budget.budget.consume('account:x'));
    assert.deepEqual(waits.slice(0, 3), [undefined, undefined, undefined]);
    assert.ok(waits[3]! > 55_000, String(waits[3]));
    // One take per call, and the refused one gives back the point the row counted for it.
    assert.equal(a.statements + b.statements, 5);
  });

  it('a new window starts with the whole budget again', async () => {
    const { budget } = replica(0, 2, 1);
    const first = await spend(budget, '198.51.100.3', 3);
    assert.equal(granted(first), 2);
    assert.ok(first[2]! > 0 && first[2]! <= 1000, String(first[2]));
    await sleep(1100);
    assert.equal(granted(await spend(budget, '198.51.100.3', 3)), 2);
  });
});
