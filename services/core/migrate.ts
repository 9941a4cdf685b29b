/**
 * The migrate process: applies the pending schema migrations and graphile-worker's own, then exits. The Helm
 * chart runs it once per install or upgrade (a pre-install/pre-upgrade Job) before any new core starts.
 * It reads only DATABASE_URL, not the whole configuration: the migration Job is given the database and no
 * other secret.
 */
import { prepareQueue } from '../scan/scan-worker.ts';
import { redactConfiguredSecrets } from '../shared/configured-secrets.ts';
import { EnvReader, loadOrExit } from '../shared/env-reader.ts';
import { createLogger } from '../shared/logger.ts';
import { guardStartup } from '../shared/startup.ts';
import { migrate, openDatabase } from './db/orm.ts';

const databaseUrl = loadOrExit('migrate', () => {
  const env = new EnvReader(process.env);
  const url = env.url('DATABASE_URL', '', ['postgres:', 'postgresql:'], true);
  if (env.value('DATABASE_URL') === undefined) {
    env.fault('DATABASE_URL: not set, expected a postgres:// connection string');
  }
  env.done();
  return url;
});
redactConfiguredSecrets(process.env, [], []); // the database password, should an error quote it
const logger = createLogger('migrate');
// The database unreachable or refusing us: one fatal line, exit 1 (startup.ts).
guardStartup(logger, databaseUrl);
const orm = await openDatabase(databaseUrl);
try {
  const applied = await migrate(orm, logger);
  await prepareQueue(databaseUrl, logger);
  logger.info({ applied }, applied.length ? 'migrations applied' : 'schema already up to date');
} finally {
  await orm.close();
}
