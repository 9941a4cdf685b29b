/**
 * The migrate process: applies the pending schema migrations and graphile-worker's own, then exits. The Helm
 * chart runs it once per install or upgrade (a pre-install/pre-upgrade Job) before any new core starts.
 * It reads only DATABASE_URL and SHUTDOWN_TIMEOUT_MS, not the whole configuration: the migration Job is
 * given the database and no other secret.
 *
 * On SIGTERM (or SIGINT) — the Job's pod deleted or evicted, its deadline passed — it stops like core does:
 * waiting for the migration lock, it stops waiting (the wait cancelled in PostgreSQL), exit 0 with nothing
 * applied; migrating, the migration under way (one transaction) runs to its end and no other begins, exit 0,
 * the rest left for the next run (the next Job, or core's own migrations at start). A second signal, or
 * SHUTDOWN_TIMEOUT_MS passing first, ends it at once with exit 1: PostgreSQL rolls that migration back.
 */
import { prepareQueue } from '../scan/scan-worker.ts';
import { redactConfiguredSecrets } from '../shared/configured-secrets.ts';
import { logConsoleAndWarnings } from '../shared/console-log.ts';
import { EnvReader, loadOrExit } from '../shared/env-reader.ts';
import { createLogger } from '../shared/logger.ts';
import { guardStartup } from '../shared/startup.ts';
import { MigrationsStopped, migrate, openDatabase } from './db/orm.ts';

const config = loadOrExit('migrate', () => {
  const env = new EnvReader(process.env);
  const databaseUrl = env.url('DATABASE_URL', '', ['postgres:', 'postgresql:'], true);
  if (env.value('DATABASE_URL') === undefined) {
    env.fault('DATABASE_URL: not set, expected a postgres:// connection string');
  }
  const shutdownTimeoutMs = env.positive('SHUTDOWN_TIMEOUT_MS', 25_000);
  env.done();
  return { databaseUrl, shutdownTimeoutMs };
});
redactConfiguredSecrets(process.env, [], []); // the database password, should an error quote it
const logger = createLogger('migrate');
// Libraries' console output and Node's warnings as JSON lines of this log (console-log.ts).
logConsoleAndWarnings(logger);
// The database unreachable or refusing us: one fatal line, exit 1 (startup.ts).
guardStartup(logger, config.databaseUrl);

const stopping = new AbortController();
/** The migration under way, named in the line of a stop that cuts it. */
let running: string | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping.signal.aborted) {
      logger.error(
        { signal, migration: running },
        'second signal: exiting now, the migration under way rolled back',
      );
      process.exit(1);
    }
    logger.info(
      { signal, timeout_ms: config.shutdownTimeoutMs, migration: running },
      'stopping: no migration begun from now on, the one under way ends first',
    );
    stopping.abort(new Error(`stopped by ${signal}`));
    setTimeout(() => {
      logger.error(
        { migration: running },
        'shutdown bound reached: exiting, the migration under way rolled back',
      );
      process.exit(1);
    }, config.shutdownTimeoutMs).unref();
  });
}

const orm = await openDatabase(config.databaseUrl);
orm.migrator.on('migrating', (migration) => {
  running = migration.name;
});
orm.migrator.on('migrated', () => {
  running = undefined;
});
try {
  const applied = await migrate(orm, logger, stopping.signal);
  if (stopping.signal.aborted) {
    logger.info(
      { applied },
      "stopped after the schema's migrations: graphile-worker's left for the next run",
    );
  } else {
    await prepareQueue(config.databaseUrl, logger);
    logger.info({ applied }, applied.length ? 'migrations applied' : 'schema already up to date');
  }
} catch (err) {
  if (err instanceof MigrationsStopped) {
    logger.info(
      { applied: err.applied, left: err.left },
      'stopped between migrations: those applied are committed, the rest left for the next run',
    );
  } else if (stopping.signal.aborted && err === stopping.signal.reason) {
    logger.info('stopped while waiting for the migration lock: nothing applied, all left for the next run');
  } else {
    throw err;
  }
} finally {
  await orm.close();
}
