import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, isListening } from '../../scripts/port.ts';
import { startEmbeddedPostgres } from '../../services/core/db/embedded.ts';
import { launchBrowser } from '../support/browser.ts';
import { callTool } from '../support/mcp.ts';
import { alive, dataDir, npmStart, stopGroup } from '../support/npm-start.ts';
import { connectWithOAuth, MemoryOAuthClient } from '../support/oauth-client.ts';
import { until } from '../support/processes.ts';

/** The process group of a running process (the fifth field of /proc/<pid>/stat). */
const processGroup = (pid: number) =>
  Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[2]);

/** The embedded PostgreSQL answers a query; it is stopped whatever happens. */
async function answersThenStops(db: { url: string; stop(): Promise<void> }) {
  try {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    assert.equal((await client.query('select 1 as one')).rows[0].one, 1);
    await client.end();
  } finally {
    await db.stop();
  }
}

describe('running it: npm start and the embedded PostgreSQL', function () {
  this.timeout(240_000);
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
    await answersThenStops(db);
    assert.ok(!alive(stale), 'the stale server was stopped before the new one started');
  });

  // Only root hands the embedded PostgreSQL to the "postgres" user, so only a root run can meet the refusal
  // below; any other user runs PostgreSQL as itself, and a private directory is then no obstacle.
  const asRoot = process.getuid?.() === 0;
  if (!asRoot)
    it('run as any other user from a private directory, the embedded PostgreSQL starts: it runs as that user', async () => {
      const hidden = mkdtempSync(join(tmpdir(), 'skinmatch-private-')); // 0700, like a home directory
      dirs.push(hidden);
      const db = await startEmbeddedPostgres(join(hidden, 'pg'), await freePort());
      await answersThenStops(db);
    });
  if (asRoot)
    describe('run as root from a directory the postgres user cannot enter', () => {
      const SENTENCE =
        /^The embedded PostgreSQL runs as the "postgres" user, who cannot enter (\S+): set DATABASE_URL to a PostgreSQL server, or put the clone \(or DATA_DIR\) where that user can reach it, not inside a private directory such as a home directory or one made by mktemp -d\.$/;
      let hidden: string;
      before(() => {
        hidden = mkdtempSync(join(tmpdir(), 'skinmatch-private-')); // 0700, like a home directory
        dirs.push(hidden);
      });

      it('the embedded PostgreSQL refuses to start, with one sentence that says what to do', async () => {
        await assert.rejects(startEmbeddedPostgres(join(hidden, 'pg'), await freePort()), (err: Error) => {
          assert.match(err.message, SENTENCE);
          assert.equal(SENTENCE.exec(err.message)![1], hidden);
          return true;
        });
      });

      it('npm start stops at once with that sentence, not with a spawn EACCES', async () => {
        const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: join(hidden, 'data'), LOG_LEVEL: 'warn' };
        delete env.DATABASE_URL;
        const start = spawn(process.execPath, ['scripts/start.ts'], {
          env,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let output = '';
        start.stdout!.on('data', (chunk) => {
          output += chunk;
        });
        start.stderr!.on('data', (chunk) => {
          output += chunk;
        });
        // 'close', not 'exit': at 'exit' its pipes may still hold the last line checked below.
        const code = await new Promise((done) => start.once('close', done));
        assert.equal(code, 1);
        const lines = output.trim().split('\n');
        assert.match(
          lines.at(-1)!,
          /^start {2}\| The embedded PostgreSQL runs as the "postgres" user, who cannot enter /,
        );
        assert.doesNotMatch(output, /EACCES|at .*\.ts:\d+/, 'no riddle, no stack trace');
      });
    });

  it('npm start serves /health and MCP, and Ctrl-C stops every process, PostgreSQL included', async () => {
    const dir = dataDir();
    dirs.push(dir);
    const run = await npmStart(dir);
    const { child: start, ports } = run;
    const facade = ports.facade;
    try {
      assert.match(run.output(), new RegExp(`MCP at http://localhost:${facade}/mcp`));
      // Health reads the database within 1 s (status-service.ts): on a machine loaded by parallel
      // runs one read can miss that bound, so the first answers may be ok: false (for over 30 s once, at a load
      // of 10).
      await until(
        '/health ok',
        async () => {
          const health = (await (await fetch(`http://127.0.0.1:${facade}/health`)).json()) as any;
          return health.ok === true;
        },
        90_000,
      );
      const pid = run.postgresPid();
      assert.notEqual(
        processGroup(pid),
        processGroup(start.pid!),
        "PostgreSQL is outside the terminal's group",
      );

      // An agent's round trip on the guest endpoint: start a scan, read it back.
      const started = (
        await callTool(`http://127.0.0.1:${facade}`, 'start_skin_scan', { source: 'npm-start' })
      ).structuredContent;
      assert.match(started.run_id, /^[0-9a-f-]{36}$/);
      assert.equal(started.status, 'awaiting_upload');
      const read = await callTool(`http://127.0.0.1:${facade}`, 'get_skin_scan', {
        run_id: started.run_id,
        access_token: started.access_token,
      });
      assert.equal(read.isError, undefined);
      assert.equal(read.structuredContent.run_id, started.run_id);
      assert.equal(read.structuredContent.next_action, 'share_upload_url');

      // A newcomer signs in to /mcp/account through the development providers npm start runs.
      assert.match(run.output(), /signing in goes through two development providers/);
      const idpPorts = run.idpPorts();
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

      // Ctrl-C in a terminal: SIGINT to every process of the foreground group at once.
      const before = run.output().length;
      process.kill(-start.pid!, 'SIGINT');
      // 'close': once it has exited and what it wrote last has been read (at 'exit' the pipe may still hold it).
      await new Promise((resolve) => start.once('close', resolve));
      assert.equal(start.exitCode, 0);
      const stopping = run.output().slice(before);
      // PostgreSQL went last: nothing complained of a lost database while stopping.
      assert.match(
        stopping,
        /inference, core and the façade have stopped; stopping PostgreSQL\n.*stopped\n$/,
      );
      assert.doesNotMatch(stopping, /"level":"(warn|error|fatal)"/, 'no warning or error while stopping');
      for (const port of [facade, ports.core, ports.inference, ports.postgres, ...idpPorts])
        assert.equal(await isListening(port), false, `port ${port}`);
      assert.ok(!alive(pid), 'PostgreSQL stopped with the rest');
      assert.match(run.output(), /stopped/);
    } finally {
      stopGroup(start);
    }
  });
});
