/**
 * The one place that opens the database: MikroORM on PostgreSQL with the committed migrations applied at
 * start (never `schema.update()`).
 */
import { MikroORM } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import type { PostgreSqlDriver } from '@mikro-orm/postgresql';
import pg from 'pg';
import { ProductSchema } from '../../catalog/product-entity.ts';
import type { Logger } from '../../shared/logger.ts';
import { BoundParamsDriver } from './bound-params.ts';
import { ScansMigration } from './migrations/0001-scans.ts';
import { CatalogMigration } from './migrations/0002-catalog.ts';
import { PhotosMigration } from './migrations/0003-photos.ts';
import { AnalysisModelsMigration } from './migrations/0004-analysis-models.ts';
import { IntakeMigration } from './migrations/0007-intake.ts';
import { AccountsMigration } from './migrations/0009-accounts.ts';
import { RateLimitsMigration } from './migrations/0010-rate-limits.ts';
import { ProductsInlineMigration } from './migrations/0011-products-inline.ts';
import { ScanVersionMigration } from './migrations/0012-scan-version.ts';
import { ScanPurgeIndexMigration } from './migrations/0012b-scan-purge-index.ts';
import { ProductsDerivedJsonMigration } from './migrations/0013-products-derived-json.ts';
import { ScanListIndexMigration } from './migrations/0014-scan-list-index.ts';
import { PhotoCrashesMigration } from './migrations/0015-photo-crashes.ts';
import { OAuthStateAtRestMigration } from './migrations/0016-oauth-state-at-rest.ts';
import { MatchSkinTypeMigration } from './migrations/0017-match-skin-type.ts';
import { AccountSignedInMigration } from './migrations/0018-account-signed-in.ts';
import { CatalogQuietBatchesMigration } from './migrations/0019-catalog-quiet-batches.ts';
import { ScanSchema } from './scan-entity.ts';
import { SettingSchema } from './setting-entity.ts';

export type Orm = MikroORM<PostgreSqlDriver>;

const MIGRATIONS = [
  { name: '0001-scans', class: ScansMigration },
  { name: '0002-catalog', class: CatalogMigration },
  { name: '0003-photos', class: PhotosMigration },
  { name: '0004-analysis-models', class: AnalysisModelsMigration },
  { name: '0007-intake', class: IntakeMigration },
  { name: '0009-accounts', class: AccountsMigration },
  { name: '0010-rate-limits', class: RateLimitsMigration },
  { name: '0011-products-inline', class: ProductsInlineMigration },
  { name: '0012-scan-version', class: ScanVersionMigration },
  { name: '0012b-scan-purge-index', class: ScanPurgeIndexMigration },
  { name: '0013-products-derived-json', class: ProductsDerivedJsonMigration },
  { name: '0014-scan-list-index', class: ScanListIndexMigration },
  { name: '0015-photo-crashes', class: PhotoCrashesMigration },
  { name: '0016-oauth-state-at-rest', class: OAuthStateAtRestMigration },
  { name: '0017-match-skin-type', class: MatchSkinTypeMigration },
  { name: '0018-account-signed-in', class: AccountSignedInMigration },
  { name: '0019-catalog-quiet-batches', class: CatalogQuietBatchesMigration },
];

/**
 * What every connection has: a connection (or a free one from a full pool) not had within 5 s fails
 * instead of waiting forever on a server that accepts but does not answer, and TCP keepalive finds a peer
 * that went away (a failed-over host) instead of a read that never ends.
 */
const CONNECTION = { connectionTimeoutMillis: 5000, keepAlive: true, keepAliveInitialDelayMillis: 10_000 };

/**
 * What core's serving connections have besides: a statement PostgreSQL runs longer than 60 s is cancelled
 * there (the longest a request's statement takes is milliseconds), and one the server does not answer
 * within 70 s (a hung server, which cancels nothing) fails here. Migrations and operator commands (catalog
 * import, admin) open the database without them; the catalog load lifts them for its one long read
 * (catalog-store.ts).
 */
export const SERVING_TIMEOUTS = { statement_timeout: 60_000, query_timeout: 70_000 };

export interface DatabaseOptions {
  /** Core's serving pool: SERVING_TIMEOUTS on every statement. */
  readonly serving?: boolean;
}

export async function openDatabase(databaseUrl: string, options: DatabaseOptions = {}): Promise<Orm> {
  return MikroORM.init({
    driver: BoundParamsDriver,
    clientUrl: databaseUrl,
    entities: [ScanSchema, SettingSchema, ProductSchema],
    extensions: [Migrator],
    migrations: {
      migrationsList: MIGRATIONS,
      tableName: 'schema_migrations',
      transactional: true,
      silent: true,
      // Schema changes are hand-written migrations; no snapshot files are written next to the code.
      snapshot: false,
    },
    debug: false,
    pool: { min: 0, max: 10 },
    driverOptions: { ...CONNECTION, ...(options.serving ? SERVING_TIMEOUTS : {}) },
  }) as Promise<Orm>;
}

/**
 * The advisory lock (two int4 keys, beside worker-liveness.ts's 0x5c1a and dead-pool-jobs.ts's 0x5c1b) held
 * while migrations run: replicas started together on an empty database (`npm start`, compose-like deploys)
 * would otherwise all create the same tables, and all but one fail (`UniqueConstraintViolationException ...
 * (typname, typnamespace)=(scans, 2200)`).
 */
export const MIGRATION_LOCK = [0x5c1c, 0] as const;

/** migrate() stopped by its signal between two migrations: `applied` are committed, `left` never begun. */
export class MigrationsStopped extends Error {
  readonly applied: readonly string[];
  readonly left: readonly string[];

  constructor(applied: readonly string[], left: readonly string[]) {
    super(`migrations stopped: ${applied.length} applied, ${left.length} left`);
    this.name = 'MigrationsStopped';
    this.applied = applied;
    this.left = left;
  }
}

/**
 * Applies pending migrations, each in its own transaction, and answers their names; never
 * `schema.update()`. Run by the migrate role (the Helm migration Job) and by core at start. One process at
 * a time: the others wait for the lock, then find nothing left to apply. `signal` stops the wait for the
 * lock (a SIGTERM while another process migrates): migrate then rejects with its reason, having applied
 * nothing. Once migrating, the migration under way is not cut by it: it runs to its end, then migrate
 * rejects with MigrationsStopped instead of beginning the next.
 */
export async function migrate(orm: Orm, logger?: Logger, signal?: AbortSignal): Promise<string[]> {
  signal?.throwIfAborted();
  // Its own connection, not one of the pool's: the lock must outlive every migration's transaction.
  const lock = new pg.Client({ connectionString: orm.config.get('clientUrl'), ...CONNECTION });
  lock.on('error', () => {}); // a lost connection fails the query under way, which is thrown
  await lock.connect();
  try {
    const free = await lock.query<{ locked: boolean; pid: number }>(
      'select pg_try_advisory_lock($1, $2) as locked, pg_backend_pid() as pid',
      [...MIGRATION_LOCK],
    );
    if (!free.rows[0]?.locked) {
      logger?.info('another process holds the migration lock (a migration Job, a replica): waiting for it');
      await waitForLock(orm, lock, free.rows[0]!.pid, signal);
    }
    signal?.throwIfAborted(); // stopped as the lock came: nothing applied, the lock released below
    const applied = await applyPending(orm, signal);
    await lock.query('select pg_advisory_unlock($1, $2)', [...MIGRATION_LOCK]);
    return applied;
  } finally {
    await lock.end(); // also releases the lock if a migration failed
  }
}

/**
 * Waits on `lock` (backend `pid`) for the migration lock; `signal` cancels the wait in the server
 * (pg_cancel_backend, on one of the pool's connections), so that no backend is left queued for the lock.
 * Failing that (the database unreachable), the lock's connection is dropped instead.
 */
async function waitForLock(orm: Orm, lock: pg.Client, pid: number, signal?: AbortSignal): Promise<void> {
  const cancel = () => {
    orm.em
      .getConnection()
      .execute('select pg_cancel_backend(?)', [pid])
      .catch(() => lock.end());
  };
  signal?.addEventListener('abort', cancel, { once: true });
  try {
    await lock.query('select pg_advisory_lock($1, $2)', [...MIGRATION_LOCK]);
  } catch (err) {
    signal?.throwIfAborted(); // the wait cancelled: the signal's reason, not PostgreSQL's 57014
    throw err;
  } finally {
    signal?.removeEventListener('abort', cancel);
  }
}

/**
 * The pending migrations one `up` each, so each is its own transaction (MikroORM's `allOrNothing`, on by
 * default, would run them all in one: a process stopped at the last would roll back every one), and
 * `signal` is looked at between two.
 */
async function applyPending(orm: Orm, signal?: AbortSignal): Promise<string[]> {
  const pending = (await orm.migrator.getPending()).map((migration) => migration.name);
  const applied: string[] = [];
  for (const name of pending) {
    if (signal?.aborted) throw new MigrationsStopped(applied, pending.slice(applied.length));
    await orm.migrator.up({ migrations: [name] });
    applied.push(name);
  }
  return applied;
}
