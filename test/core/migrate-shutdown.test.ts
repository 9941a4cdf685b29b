/**
 * The migrate role (the Helm chart's migration Job) on SIGTERM, through real migrate processes and a real
 * PostgreSQL. It used to end by the signal, wherever it was: waiting for the migration lock (its backend
 * left queued for the lock in PostgreSQL), or migrating (the migration under way rolled back, and since
 * MikroORM ran every pending migration in one transaction, all those before it too). Now it stops like
 * core: waiting, it stops waiting and exits 0 with nothing applied; migrating, the migration under way
 * (one transaction) ends and no other begins, exit 0; a second signal or SHUTDOWN_TIMEOUT_MS passing ends
 * it at once, exit 1, and that migration is rolled back.
 *
 * The test holds the migrations' advisory lock (orm.ts MIGRATION_LOCK) as another migrating process does,
 * or an ACCESS EXCLUSIVE lock on the table a pending migration alters, which keeps that migration running.
 */
import assert from 'node:assert/strict';
import pg from 'pg';
import { MIGRATION_LOCK, openDatabase } from '../../services/core/db/orm.ts';
import { createTestDatabase } from '../support/database.ts';
import { type RunningProcess, startProcess, stopAll, until } from '../support/processes.ts';

/** The last migration the database is given before a case; the three after it are pending. */
const BEFORE = '0016-oauth-state-at-rest';
/** The first pending one: `alter table scan_matches add column skin_type text`. */
const ALTERS_SCAN_MATCHES = '0017-match-skin-type';
const AFTER = ['0018-account-signed-in', '0019-catalog-quiet-batches'];

describe('the migrate role on SIGTERM, through real migrate processes', function () {
  this.timeout(180_000);
  const running = new Set<RunningProcess>();
  const drops: (() => Promise<void>)[] = [];
  let url = '';
  let test: pg.Client;

  /** A fresh database (migrated up to `upTo` if given) and a connection of the test's own to it. */
  async function database(upTo?: string): Promise<void> {
    const db = await createTestDatabase();
    drops.push(db.drop);
    url = db.url;
    if (upTo) {
      const orm = await openDatabase(url);
      await orm.migrator.up({ to: upTo });
      await orm.close();
    }
    test = new pg.Client({ connectionString: url });
    await test.connect();
  }

  async function startMigrate(env: NodeJS.ProcessEnv = {}): Promise<RunningProcess> {
    const migrate = await startProcess('migrate', { DATABASE_URL: url, ...env }, undefined, { ready: false });
    running.add(migrate);
    return migrate;
  }

  /** The migrations recorded as applied. */
  async function applied(): Promise<string[]> {
    const { rows } = await test.query<{ exists: boolean }>(
      "select to_regclass('public.schema_migrations') is not null as exists",
    );
    if (!rows[0]!.exists) return [];
    const names = await test.query<{ name: string }>('select name from schema_migrations order by id');
    return names.rows.map((row) => row.name);
  }

  /** Backends holding (granted) or queued for (not granted) the migration lock. */
  async function lockHolders(granted: boolean): Promise<number> {
    const { rows } = await test.query<{ n: number }>(
      `select count(*)::int as n from pg_locks
        where locktype = 'advisory' and classid = $1 and objid = $2 and objsubid = 2 and granted = $3
          and database = (select oid from pg_database where datname = current_database())`,
      [...MIGRATION_LOCK, granted],
    );
    return rows[0]!.n;
  }

  /** Backends waiting for a lock on scan_matches (the migration under way, held up by the test). */
  async function waitingForScanMatches(): Promise<number> {
    const { rows } = await test.query<{ n: number }>(
      `select count(*)::int as n from pg_locks
        where locktype = 'relation' and relation = 'scan_matches'::regclass and not granted`,
    );
    return rows[0]!.n;
  }

  /** Sessions on the database other than the test's own (a cut migration's backend ends after its process). */
  async function otherSessions(): Promise<number> {
    const { rows } = await test.query<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid()`,
    );
    return rows[0]!.n;
  }

  /** Until the role logs that it is stopping, or has ended (as it did by the signal itself). */
  const stoppingOrGone = (migrate: RunningProcess) =>
    until(
      'the stopping line',
      () =>
        migrate.logged(/^stopping/).length > 0 ||
        migrate.child.exitCode !== null ||
        migrate.child.signalCode !== null,
    );

  const errors = (migrate: RunningProcess) =>
    migrate.logged(/./).filter((line) => line.level === 'error' || line.level === 'fatal');

  /** The migrate role started with the first pending migration held up by the test's table lock. */
  async function migratingHeldUp(env: NodeJS.ProcessEnv = {}): Promise<RunningProcess> {
    await database(BEFORE);
    await test.query('begin');
    await test.query('lock table scan_matches in access exclusive mode');
    const migrate = await startMigrate(env);
    await until(
      'the migration under way, waiting for scan_matches',
      async () => (await waitingForScanMatches()) === 1,
    );
    return migrate;
  }

  afterEach(async () => {
    await stopAll(running);
    running.clear();
    await test?.end();
    for (const drop of drops.splice(0)) await drop();
  });

  it('waiting for the migration lock: stops waiting (no backend left queued), exit 0, nothing applied', async () => {
    await database();
    await test.query('select pg_advisory_lock($1, $2)', [...MIGRATION_LOCK]);
    const migrate = await startMigrate();
    await until('migrate waiting for the migration lock', () => migrate.logged(/migration lock/).length > 0);
    await until('its wait queued in PostgreSQL', async () => (await lockHolders(false)) === 1);

    migrate.signal('SIGTERM');
    assert.equal(await migrate.exited, 0, migrate.output());
    assert.equal(migrate.logged(/^stopped while waiting for the migration lock: nothing applied/).length, 1);
    assert.deepEqual(errors(migrate), [], 'no error nor fatal line');
    assert.equal(await lockHolders(false), 0, 'no backend left waiting for the lock');
    assert.equal(await lockHolders(true), 1, 'the lock still the test’s');
    assert.deepEqual(await applied(), [], 'no migration applied');
  });

  it('migrating: the migration under way ends, no other begins, exit 0 naming those applied and left', async () => {
    const migrate = await migratingHeldUp();
    migrate.signal('SIGTERM');
    await stoppingOrGone(migrate);
    assert.equal(migrate.logged(/^stopping/)[0]!.migration, ALTERS_SCAN_MATCHES);
    await test.query('rollback'); // the migration under way goes on

    assert.equal(await migrate.exited, 0, migrate.output());
    const [stopped] = migrate.logged(/^stopped between migrations/);
    assert.deepEqual(
      { applied: stopped?.applied, left: stopped?.left },
      { applied: [ALTERS_SCAN_MATCHES], left: AFTER },
    );
    assert.deepEqual(errors(migrate), [], 'no error nor fatal line');
    assert.equal((await applied()).at(-1), ALTERS_SCAN_MATCHES, 'the one under way committed, no other');
    await test.query('select skin_type from scan_matches limit 0');
    assert.equal(await lockHolders(true), 0, 'the migration lock released');
  });

  it('a second SIGTERM while migrating: exit 1 at once, the migration under way rolled back', async () => {
    const migrate = await migratingHeldUp();
    migrate.signal('SIGTERM');
    await stoppingOrGone(migrate);
    migrate.signal('SIGTERM');
    assert.equal(await migrate.exited, 1, migrate.output());
    const [second] = migrate.logged(/^second signal: exiting now, the migration under way rolled back$/);
    assert.equal(second?.migration, ALTERS_SCAN_MATCHES);

    await test.query('rollback');
    await until('the cut migration’s backend gone', async () => (await otherSessions()) === 0);
    assert.equal((await applied()).at(-1), BEFORE, 'nothing applied');
  });

  it('the shutdown bound passing while migrating: exit 1, the migration under way rolled back', async () => {
    const migrate = await migratingHeldUp({ SHUTDOWN_TIMEOUT_MS: '1000' });
    migrate.signal('SIGTERM');
    assert.equal(await migrate.exited, 1, migrate.output());
    const [bound] = migrate.logged(/^shutdown bound reached: exiting, the migration under way rolled back$/);
    assert.equal(bound?.migration, ALTERS_SCAN_MATCHES);

    await test.query('rollback');
    await until('the cut migration’s backend gone', async () => (await otherSessions()) === 0);
    assert.equal((await applied()).at(-1), BEFORE, 'nothing applied');
  });
});
