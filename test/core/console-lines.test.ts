/**
 * Core stopping while its database is down, through a real process: graphile-worker `console.trace`s each
 * worker that exits on the lost connection, which reached stderr as a multi-line stack. Every line core
 * writes is one JSON object (services/shared/console-log.ts).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../../scripts/port.ts';
import { type EmbeddedDatabase, startEmbeddedPostgres } from '../../services/core/db/embedded.ts';
import { type RunningProcess, serviceEnv, startProcess, stopAll } from '../support/processes.ts';

function isJsonObject(line: string): boolean {
  try {
    const value = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

describe('core stopping while its database is down, through a real process', function () {
  this.timeout(240_000);
  const running = new Set<RunningProcess>();
  // A server of this test's own (the other tests share theirs), in .data so its `postgres` user reaches it.
  const pgDir = resolve(`.data/test-pg-console-${process.pid}`);
  let server: EmbeddedDatabase | undefined;
  let dir: string;
  after(async () => {
    await stopAll(running);
    await server?.stop();
    rmSync(pgDir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes only JSON lines, library output included', async () => {
    dir = mkdtempSync(join(tmpdir(), 'skinmatch-console-'));
    server = await startEmbeddedPostgres(pgDir, await freePort());
    const env = serviceEnv(dir, server.url);
    running.add(await startProcess('migrate', env));
    const core = await startProcess('core', env);
    running.add(core);
    await server.stop();
    server = undefined;
    // Long enough for the worker's next poll for jobs to meet the closed database.
    await new Promise((done) => setTimeout(done, 3000));
    core.signal('SIGTERM');
    await core.exited;
    const lines = core
      .output()
      .split('\n')
      .filter((line) => line !== '');
    assert.ok(
      lines.some((line) => line.includes('Worker exited with error')),
      'graphile-worker reported its workers',
    );
    assert.deepEqual(
      lines.filter((line) => !isJsonObject(line)),
      [],
    );
  });
});
