/**
 * Replicas started together on an empty database (`npm start`, compose-like deploys) all migrate it: one
 * applies the migrations, under an advisory lock, the others wait and find nothing left to do. Before the
 * lock, all but one failed on the tables they created together.
 */
import assert from 'node:assert/strict';
import { migrate, type Orm, openDatabase } from '../../services/core/db/orm.ts';
import { createTestDatabase } from '../support/database.ts';

const REPLICAS = 4;

describe('migrations run by several processes at once on a fresh database', function () {
  this.timeout(120_000);
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  const orms: Orm[] = [];

  before(async () => {
    database = await createTestDatabase();
    for (let i = 0; i < REPLICAS; i++) orms.push(await openDatabase(database.url));
  });
  after(async () => {
    await Promise.all(orms.map((orm) => orm.close()));
    await database?.drop();
  });

  it('all succeed, and every migration is applied once, by one of them', async () => {
    const outcomes = await Promise.allSettled(orms.map((orm) => migrate(orm)));
    const failures = outcomes.flatMap((o) => (o.status === 'rejected' ? [String(o.reason)] : []));
    assert.deepEqual(failures, []);
    const applied = outcomes.map((o) => (o.status === 'fulfilled' ? o.value : []));
    const rows = await orms[0]!.em
      .getConnection()
      .execute<{ name: string }[]>('select name from schema_migrations order by id');
    const names = rows.map((row) => row.name);
    assert.ok(names.length > 10, `${names.length} migrations recorded`);
    assert.equal(new Set(names).size, names.length, 'none recorded twice');
    // One process applied them all; the others found them applied.
    assert.deepEqual(
      applied.map((list) => list.length).sort((a, b) => b - a),
      [names.length, ...Array(REPLICAS - 1).fill(0)],
    );
    assert.deepEqual(
      applied.find((list) => list.length > 0),
      names,
    );
    assert.deepEqual(
      await Promise.all(orms.map((orm) => orm.migrator.getPending())),
      Array(REPLICAS).fill([]),
    );
  });
});
