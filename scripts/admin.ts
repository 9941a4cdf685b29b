/**
 * Operator commands. `npm run admin -- admissions off|on|status` switches new scans off and on for every
 * replica at once (the switch lives in the database). The automatic pause on an analysis backlog is a
 * second switch, shown by `status`, that the operator's `on` does not override. Exit status: 0 done, 2 wrong
 * usage, 3 the database failed (cli-database.ts), 78 the configuration is refused.
 */
import { admissions, setAdmissions } from '../services/scan/admissions.ts';
import { withDatabase } from './cli-database.ts';

const USAGE = 'usage: npm run admin -- admissions off|on|status';
const args = process.argv.slice(2);
const [command, argument] = args;
if (args.length !== 2 || command !== 'admissions' || !['on', 'off', 'status'].includes(argument ?? '')) {
  console.error(USAGE);
  process.exit(2);
}

await withDatabase({ name: 'admin' }, async (orm) => {
  const em = orm.em.fork();
  if (argument !== 'status') await setAdmissions(em, argument === 'on');
  const state = await admissions(em);
  console.log(`admissions ${state.pausedByOperator ? 'off' : 'on'}`);
  if (state.pausedByBacklog) {
    console.log('new scans are paused meanwhile: the analysis backlog is over its bound (automatic)');
  }
});
