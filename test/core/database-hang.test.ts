/**
 * A PostgreSQL that hangs instead of refusing (every process of it stopped with SIGSTOP, as a stalled disk
 * or a frozen VM leaves it), through a real core process and @grpc/grpc-js clients: grpc.health.v1 says
 * NOT_SERVING within its bound (Check, and an open Watch) and GetStatus `database_ok: false`, where both
 * used to end in the caller's DEADLINE_EXCEEDED every time; calls abandoned at their deadline do no database
 * work and are recorded as DeadlineExceeded (the old core queued all of them and ran them once PostgreSQL
 * resumed, answering "ok" at up to 24 s); and all is well again once it resumes.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import * as grpc from '@grpc/grpc-js';
import { freePort } from '../../scripts/port.ts';
import { type EmbeddedDatabase, startEmbeddedPostgres } from '../../services/core/db/embedded.ts';
import { openDatabase } from '../../services/core/db/orm.ts';
import { loadProto, unary } from '../support/grpc-js.ts';
import { signalServer } from '../support/postgres-signal.ts';
import { type RunningProcess, serviceEnv, startProcess, stopAll, until } from '../support/processes.ts';

/** How a grpc-js unary call ended: its status code and answer. */
const outcome = <T>(call: Promise<T>) =>
  call.then(
    (answer) => ({ code: grpc.status.OK, answer }),
    (err: grpc.ServiceError) => ({ code: err.code, answer: undefined }),
  );

describe('a PostgreSQL that hangs, through a real core process', function () {
  this.timeout(180_000);
  const running = new Set<RunningProcess>();
  const pgDir = resolve(`.data/test-pg-hang-${process.pid}`);
  let server: EmbeddedDatabase;
  let dir: string;
  let core: RunningProcess;
  const clients: any[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'skinmatch-pg-hang-'));
    server = await startEmbeddedPostgres(pgDir, await freePort());
    const env = serviceEnv(dir, server.url);
    running.add(await startProcess('migrate', env));
    core = await startProcess('core', env);
    running.add(core);
  });
  after(async () => {
    for (const client of clients) client.close();
    await stopAll(running);
    await server?.stop();
    rmSync(pgDir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  });

  it('health and status say the database is down within a second, abandoned calls are skipped', async () => {
    const target = new URL(core.url).host;
    const insecure = grpc.credentials.createInsecure();
    const health = new (loadProto('grpc/health/v1/health.proto').grpc.health.v1.Health)(target, insecure);
    const status = new (loadProto('skinmatch/v1/status.proto').skinmatch.v1.StatusService)(target, insecure);
    const scans = new (loadProto('skinmatch/v1/scan.proto').skinmatch.v1.ScanService)(target, insecure);
    clients.push(health, status, scans);
    const within = (ms: number) => ({ deadline: Date.now() + ms });
    const started: any = await unary(scans, 'startScan', { source: 'hang' });
    const identity = { runId: started.runId, accessToken: started.accessToken };
    const watched: string[] = [];
    const watch = health.watch({ service: '' });
    watch.on('data', (res: any) => watched.push(res.status));
    watch.on('error', () => {});
    await until('the watch SERVING', () => watched.includes('SERVING'));

    signalServer(pgDir, 'SIGSTOP');
    try {
      const asked = performance.now();
      const checked = await outcome(
        new Promise<any>((done, fail) =>
          health.check({ service: '' }, within(3000), (err: Error | null, res: any) =>
            err ? fail(err) : done(res),
          ),
        ),
      );
      assert.deepEqual(checked, { code: grpc.status.OK, answer: { status: 'NOT_SERVING' } });
      assert.ok(performance.now() - asked < 2500, 'within the probe’s bound');
      const got = await outcome(
        new Promise<any>((done, fail) =>
          status.getStatus({}, within(3000), (err: Error | null, res: any) => (err ? fail(err) : done(res))),
        ),
      );
      assert.equal(got.code, grpc.status.OK);
      assert.equal(got.answer.databaseOk, false);
      await until('the watch NOT_SERVING', () => watched.includes('NOT_SERVING'), 5000);

      const count = 100;
      const calls = await Promise.all(
        Array.from({ length: count }, () =>
          outcome(
            new Promise((done, fail) =>
              scans.getScan(identity, within(1000), (err: Error | null, res: unknown) =>
                err ? fail(err) : done(res),
              ),
            ),
          ),
        ),
      );
      assert.deepEqual(
        calls.map((c) => c.code),
        Array(count).fill(grpc.status.DEADLINE_EXCEEDED),
      );
      await sleep(4000); // PostgreSQL stays stopped well past every deadline
    } finally {
      signalServer(pgDir, 'SIGCONT');
    }

    const logged = () => core.logged(/^rpc$/).filter((line) => String(line.procedure).endsWith('/GetScan'));
    await until('every GetScan recorded', () => logged().length === 100, 30_000);
    // Each gave up at its deadline; only calls whose statement had been sent (at most the pool's 10
    // connections) waited for PostgreSQL. The old core ran all of them after it resumed, and logged "ok".
    // grpc-js cancels at its deadline as the server's own deadline passes: whichever is seen first names it.
    for (const line of logged()) assert.match(String(line.code), /^(DeadlineExceeded|Canceled)$/);
    const waited = logged().filter((line) => Number(line.ms) > 2500).length;
    assert.ok(waited <= 10, `${waited} calls waited for PostgreSQL`);

    await until('the watch SERVING again', () => watched.at(-1) === 'SERVING', 10_000);
    assert.deepEqual(watched, ['SERVING', 'NOT_SERVING', 'SERVING']);
    assert.equal(
      ((await unary(scans, 'getScan', identity)) as any).scan.status,
      'SCAN_STATUS_AWAITING_UPLOAD',
    );
    assert.equal(((await unary(status, 'getStatus', {})) as any).databaseOk, true);
    watch.cancel();
  });

  it('core’s serving connections bound a statement; migrations’ and operator commands’ do not', async () => {
    const timeoutOf = async (options?: { serving: boolean }) => {
      const orm = await openDatabase(server.url, options);
      try {
        const [row] = await orm.em.getConnection().execute('show statement_timeout');
        return row?.statement_timeout as string;
      } finally {
        await orm.close();
      }
    };
    assert.equal(await timeoutOf({ serving: true }), '1min');
    assert.equal(await timeoutOf(), '0');
  });
});
