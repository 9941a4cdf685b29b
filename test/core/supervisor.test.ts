import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, isListening, waitForPort } from '../../scripts/port.ts';
import { startEmbeddedPostgres } from '../../services/core/db/embedded.ts';
import { launchBrowser } from '../support/browser.ts';
import { connectWithOAuth, MemoryOAuthClient } from '../support/oauth-client.ts';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** A data directory PostgreSQL's own user can reach (mkdtemp makes it private to root). */
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'skinmatch-data-'));
  chmodSync(dir, 0o755);
  return dir;
}

describe('running it: npm start and the embedded PostgreSQL', function () {
  this.timeout(120_000);
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('a PostgreSQL left running by a killed run is stopped, and a new one starts on the same data', async () => {
    const dir = dataDir();
    dirs.push(dir);
    const port = await freePort();
    // A run that is killed outright: its PostgreSQL outlives it.
    const owner = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { startEmbeddedPostgres } from '${new URL('../../services/core/db/embedded.ts', import.meta.url).href}';
         await startEmbeddedPostgres('${join(dir, 'pg')}', ${port}); console.log('up');`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise((resolve) => owner.stdout!.once('data', resolve));
    owner.kill('SIGKILL');
    await new Promise((resolve) => owner.once('exit', resolve));
    const stale = Number(readFileSync(join(dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    assert.ok(alive(stale), 'the killed run left its PostgreSQL running');

    const db = await startEmbeddedPostgres(join(dir, 'pg'), port);
    try {
      assert.ok(!alive(stale), 'the stale server was stopped');
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      assert.equal((await client.query('select 1 as one')).rows[0].one, 1);
      await client.end();
    } finally {
      await db.stop();
    }
  });

  it('npm start serves /health and MCP, and Ctrl-C stops every process, PostgreSQL included', async () => {
    const dir = dataDir();
    dirs.push(dir);
    const [facade, core, inference, postgres] = await Promise.all([
      freePort(),
      freePort(),
      freePort(),
      freePort(),
    ]);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATA_DIR: dir,
      FACADE_PORT: String(facade),
      CORE_PORT: String(core),
      INFERENCE_PORT: String(inference),
      EMBEDDED_PG_PORT: String(postgres),
      LOG_LEVEL: 'warn',
    };
    delete env.DATABASE_URL;
    const start: ChildProcess = spawn(process.execPath, ['scripts/start.ts'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    start.stdout!.on('data', (chunk) => {
      output += chunk;
    });
    try {
      assert.ok(await waitForPort(facade, 90_000), 'the façade listens');
      const deadline = Date.now() + 30_000;
      while (!output.includes('skinmatch is up') && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      assert.match(output, new RegExp(`MCP at http://localhost:${facade}/mcp`));
      const health = (await (await fetch(`http://127.0.0.1:${facade}/health`)).json()) as any;
      assert.equal(health.ok, true);
      const pid = Number(readFileSync(join(dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);

      // A newcomer signs in to /mcp/account through the development providers npm start runs.
      assert.match(output, /signing in goes through two development providers/);
      const idpPorts = [
        ...output.matchAll(/dev identity provider "Dev provider \d" at http:\/\/127\.0\.0\.1:(\d+)/g),
      ].map((m) => Number(m[1]));
      assert.equal(idpPorts.length, 2);
      const browser = await launchBrowser();
      try {
        const client = await connectWithOAuth(
          browser,
          `http://localhost:${facade}`,
          new MemoryOAuthClient('none'),
          { provider: 'Dev provider 2', login: 'newcomer' },
        );
        const listed = await client.callTool({ name: 'list_my_scans', arguments: {} });
        assert.deepEqual(listed.structuredContent, { scans: [] });
        await client.close();
      } finally {
        await browser.close();
      }

      start.kill('SIGINT');
      await new Promise((resolve) => start.once('exit', resolve));
      assert.equal(start.exitCode, 0);
      for (const port of [facade, core, inference, postgres, ...idpPorts])
        assert.equal(await isListening(port), false, `port ${port}`);
      assert.ok(!alive(pid), 'PostgreSQL stopped with the rest');
      assert.match(output, /stopped/);
    } finally {
      if (start.exitCode === null) start.kill('SIGKILL');
    }
  });
});
