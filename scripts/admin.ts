/**
 * Operator commands. `npm run admin -- admissions off|on|status` switches new scans off and on for every
 * replica at once (the switch lives in the database).
 */
import { admissionsEnabled, setAdmissions } from '../services/scan/admissions.ts';
import { withDatabase } from './cli-database.ts';

const USAGE = 'usage: npm run admin -- admissions off|on|status';
const [command, argument] = process.argv.slice(2);
if (command !== 'admissions' || !['on', 'off', 'status'].includes(argument ?? '')) {
  console.error(USAGE);
  process.exit(2);
}

await withDatabase(async (orm) => {
  const em = orm.em.fork();
  if (argument !== 'status') await setAdmissions(em, argument === 'on');
  console.log(`admissions ${(await admissionsEnabled(em)) ? 'on' : 'off'}`);
});
