/**
 * Operator commands. `npm run admin -- admissions off|on|status` switches new scans off and on for every
 * replica at once (the switch lives in the database). Uses DATABASE_URL, or the embedded PostgreSQL of
 * `npm start` (started for the duration of the command if it is not running).
 */
import { join } from 'node:path';
import { runningEmbeddedUrl, startEmbeddedPostgres } from '../services/core/db/embedded.ts';
import { migrate, openDatabase } from '../services/core/db/orm.ts';
import { admissionsEnabled, setAdmissions } from '../services/scan/admissions.ts';
import { loadConfig } from '../services/shared/config.ts';

const USAGE = 'usage: npm run admin -- admissions off|on|status';
const [command, argument] = process.argv.slice(2);
if (command !== 'admissions' || !['on', 'off', 'status'].includes(argument ?? '')) {
  console.error(USAGE);
  process.exit(2);
}

const config = loadConfig();
const pgDir = join(config.dataDir, 'pg');
const port = Number(process.env.EMBEDDED_PG_PORT ?? 54320);
const temporary =
  config.databaseUrl || runningEmbeddedUrl(pgDir, port)
    ? undefined
    : await startEmbeddedPostgres(pgDir, port);
const url = config.databaseUrl ?? runningEmbeddedUrl(pgDir, port) ?? temporary!.url;

const orm = await openDatabase(url);
try {
  await migrate(orm);
  const em = orm.em.fork();
  if (argument !== 'status') await setAdmissions(em, argument === 'on');
  console.log(`admissions ${(await admissionsEnabled(em)) ? 'on' : 'off'}`);
} finally {
  await orm.close();
  await temporary?.stop();
}
