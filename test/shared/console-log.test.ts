/**
 * What libraries print to the console, and Node's warnings, come out as the process's JSON log lines
 * (services/shared/console-log.ts), in a process of their own as the services run.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';

const SCRIPT = `
import { logConsoleAndWarnings } from '${new URL('../../services/shared/console-log.ts', import.meta.url).href}';
import { createLogger } from '${new URL('../../services/shared/logger.ts', import.meta.url).href}';
logConsoleAndWarnings(createLogger('core', 'debug'));
console.log('plain %s', 'text');
console.debug('some detail');
console.warn('a library warns');
console.trace(new Error('connect ECONNREFUSED 127.0.0.1:54320'));
process.emitWarning('this API goes away', { type: 'DeprecationWarning', code: 'DEP0999' });
setTimeout(() => {}, 100);
`;

describe('console output and process warnings', () => {
  it('every line is one JSON object at the level its method means, nothing on stderr', async () => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', SCRIPT], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    assert.equal(await new Promise((resolve) => child.once('exit', resolve)), 0, stderr);
    assert.equal(stderr, '');
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.deepEqual(
      lines.map((line) => [line.level, line.source, line.msg]),
      [
        ['info', 'console', 'plain text'],
        ['debug', 'console', 'some detail'],
        ['warn', 'console', 'a library warns'],
        ['error', 'console', 'Error: connect ECONNREFUSED 127.0.0.1:54320'],
        ['warn', 'node', 'this API goes away'],
      ],
    );
    assert.equal(lines[3].err.message, 'connect ECONNREFUSED 127.0.0.1:54320');
    assert.deepEqual([lines[4].warning, lines[4].code], ['DeprecationWarning', 'DEP0999']);
  });
});
