/**
 * A second `npm start` on the same checkout while the first runs: it says in words which port is taken and
 * leaves the first run alone — its embedded PostgreSQL above all, which it once stopped as "stale".
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../scripts/port.ts';
import { startEmbeddedPostgres } from '../../services/core/db/embedded.ts';
import { alive, dataDir, npmStart, stopGroup } from '../support/npm-start.ts';
import { until } from '../support/processes.ts';

const postmasterPid = (pgDir: string) =>
  Number(readFileSync(join(pgDir, 'postmaster.pid'), 'utf8').split('\n')[0]);

describe('a second run on the same data directory', function () {
  this.timeout(240_000);
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('the embedded PostgreSQL of a process that still runs is refused, not stopped as stale', async () => {
    const dir = dataDir();
    dirs.push(dir);
    const pgDir = join(dir, 'pg');
    const port = await freePort();
    const owner = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { startEmbeddedPostgres } from '${new URL('../../services/core/db/embedded.ts', import.meta.url).href}';
         await startEmbeddedPostgres('${pgDir}', ${port}); console.log('up'); setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const server = await new Promise<number>((resolve) =>
      owner.stdout!.once('data', () => resolve(postmasterPid(pgDir))),
    );
    try {
      await assert.rejects(startEmbeddedPostgres(pgDir, port), (err: Error) => {
        assert.equal(
          err.message,
          `The embedded PostgreSQL in ${pgDir} is in use by a running process (pid ${owner.pid}), such as ` +
            'another `npm start`: stop that one first, or give this one its own DATA_DIR, EMBEDDED_PG_PORT and ports.',
        );
        return true;
      });
      assert.ok(alive(server), 'the server in use still runs');
    } finally {
      owner.kill('SIGKILL');
      await new Promise((resolve) => owner.once('exit', resolve));
    }
    // Its starter gone, the same server is stale now: stopped, and a new one starts on the same data.
    const db = await startEmbeddedPostgres(pgDir, port);
    await db.stop();
    assert.ok(!alive(server), 'the stale server was stopped');
  });

  it('a second npm start says which port is taken, exits 1, and the first run serves on', async () => {
    const dir = dataDir();
    dirs.push(dir);
    const first = await npmStart(dir);
    try {
      // The development keys' warnings once each, as the façade's JSON lines (the supervisor printed them too).
      const warned = (key: string) =>
        first
          .output()
          .split('\n')
          .filter((l) => l.includes(`${key} is not set`));
      for (const key of ['OAUTH_SIGNING_KEY', 'OAUTH_COOKIE_KEYS']) {
        await until(`${key} warned`, () => warned(key).length > 0);
        assert.equal(warned(key).length, 1, warned(key).join('\n'));
        assert.match(warned(key)[0]!, /^facade \| \{"level":"warn"/);
      }
      const postgres = first.postgresPid();
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        DATA_DIR: dir,
        FACADE_PORT: String(first.ports.facade),
        CORE_PORT: String(first.ports.core),
        INFERENCE_PORT: String(first.ports.inference),
        EMBEDDED_PG_PORT: String(first.ports.postgres),
      };
      delete env.DATABASE_URL;
      const second = spawn(process.execPath, ['scripts/start.ts'], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      for (const stream of [second.stdout!, second.stderr!]) stream.on('data', (chunk) => (output += chunk));
      const code = await new Promise((resolve) => second.once('exit', resolve));
      assert.equal(code, 1, output);
      assert.match(
        output,
        new RegExp(
          `^start {2}\\| cannot start: port ${first.ports.facade} \\(FACADE_PORT\\) is in use, by another npm start ` +
            'or another program: stop it, or set FACADE_PORT$',
          'm',
        ),
      );
      assert.doesNotMatch(output, /PostgreSQL|skinmatch is up/);
      assert.ok(alive(postgres), "the first run's PostgreSQL still runs");
      await until('the first run still healthy', async () => {
        const health = (await (await fetch(`http://127.0.0.1:${first.ports.facade}/health`)).json()) as any;
        return health.ok === true;
      });
    } finally {
      process.kill(-first.child.pid!, 'SIGINT');
      await new Promise((resolve) => first.child.once('exit', resolve));
      stopGroup(first.child);
    }
  });
});
