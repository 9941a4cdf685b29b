/**
 * A process that logs as the services do (createLogger's own destination) and exits at once, as a shutdown
 * does after its last line: `node test/support/log-then-exit.ts N` logs N lines, then `last`, then exits 0.
 */
import { createLogger } from '../../services/shared/logger.ts';

const logger = createLogger('log-then-exit');
const count = Number(process.argv[2]);
for (let i = 0; i < count; i++) logger.info({ i, pad: 'x'.repeat(200) }, 'line');
// After a turn of the event loop, as a shutdown's last line follows its drain.
setTimeout(() => {
  logger.info('last');
  process.exit(0);
}, 50);
