/**
 * Core answers while its migrations wait, through a real core process. Core ran its migrations before it
 * opened its port: while the chart's migration Job held the migration lock (a long migration), or another
 * replica did, core refused every connection as a dead process does, and the chart's startup probe counted
 * failures until the pod was restarted — into the same wait. Now it listens at once: grpc.health.v1's
 * `readiness` check NOT_SERVING while the overall status SERVING (the database answers: the startupProbe),
 * every call but health `unavailable`; ready once the migrations and the first catalog load have ended.
 * The façade's /health said 503 meanwhile, as for an outage (core's StatusService was refused too): now 200
 * with `ok` false and `core: "starting"`, logged once as info.
 *
 * A SIGTERM meanwhile (a rollout replacing the pod, a scale-down) ended core by the signal, without the
 * graceful shutdown: the shutdown handlers were installed only once core had started. Now it stops waiting
 * at once (the wait cancelled in PostgreSQL: no backend left queued for the lock), closes its server and
 * pool, logs it and exits 0.
 *
 * The test holds the migrations' advisory lock (orm.ts MIGRATION_LOCK) as a migration Job does while it runs.
 */
import assert from 'node:assert/strict';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { ErrorInfoSchema } from '../../gen/google/rpc/error_details_pb.ts';
import { Health, HealthCheckResponse_ServingStatus as Status } from '../../gen/grpc/health/v1/health_pb.ts';
import { CatalogService } from '../../gen/skinmatch/v1/catalog_pb.ts';
import { ScanService } from '../../gen/skinmatch/v1/scan_pb.ts';
import { MIGRATION_LOCK } from '../../services/core/db/orm.ts';
import { TEST_CATALOG } from '../support/fixtures.ts';
import { heldDatabase } from '../support/held-database.ts';
import { startProcess, until } from '../support/processes.ts';

describe('core while another process holds the migration lock, through a real core process', function () {
  this.timeout(180_000);
  const held = heldDatabase('migration-lock');
  /** Backends holding (granted) or queued for (not granted) the migration lock. */
  const lockHolders = async (granted: boolean) => {
    const { rows } = await held.lock.query<{ n: number }>(
      `select count(*)::int as n from pg_locks
        where locktype = 'advisory' and classid = $1 and objid = $2 and objsubid = 2 and granted = $3
          and database = (select oid from pg_database where datname = current_database())`,
      [...MIGRATION_LOCK, granted],
    );
    return rows[0]!.n;
  };

  it('answers not ready and unavailable while the migrations wait, ready once they and the load have ended', async () => {
    await held.lock.query('select pg_advisory_lock($1, $2)', [...MIGRATION_LOCK]);
    // Resolves once core listens: before, never while the lock was held (startProcess gives up after 60 s).
    const core = await startProcess('core', held.env, undefined, { ready: false });
    held.running.add(core);
    const transport = createConnectTransport({ baseUrl: core.url, httpVersion: '2' });
    const health = createClient(Health, transport);
    const coreSays = async (service: string) => (await health.check({ service }, { timeoutMs: 3000 })).status;
    const productId = TEST_CATALOG[0]!.product_id;
    const getProduct = () =>
      createClient(CatalogService, transport).getProduct({ productId }, { timeoutMs: 3000 });
    const startScan = () =>
      createClient(ScanService, transport).startScan({ source: 'web' }, { timeoutMs: 3000 });
    const refusal = (call: () => Promise<unknown>) =>
      call().then(
        () => assert.fail('answered before the migrations had ended'),
        (err: unknown) => ConnectError.from(err),
      );

    await until('core waiting for the migration lock', () => core.logged(/migration lock/).length > 0);
    assert.equal(await coreSays('readiness'), Status.NOT_SERVING);
    assert.equal(await coreSays(''), Status.SERVING, 'the database answers: the startup probe passes');
    for (const call of [getProduct, startScan]) {
      const refused = await refusal(call);
      assert.equal(refused.code, Code.Unavailable);
      assert.equal(refused.findDetails(ErrorInfoSchema)[0]?.reason, 'unavailable');
    }
    // The façade: /ready 200, and /health 200 saying that core is starting, not the 503 of an outage.
    const facade = await startProcess('facade', { ...held.env, CORE_URL: core.url });
    held.running.add(facade);
    const get = async (path: string) => {
      const res = await fetch(new URL(path, facade.url), { signal: AbortSignal.timeout(3000) });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    assert.deepEqual(await get('/ready'), { status: 200, body: { ready: true } });
    assert.deepEqual(await get('/health'), {
      status: 200,
      body: {
        ok: false,
        admissions_enabled: false,
        core: 'starting',
        catalog_tools_enabled: false,
        catalog: 'loading',
        photo_intake: 'unavailable',
      },
    });
    // Still waiting all along: nothing above was answered by a started core.
    assert.equal(await coreSays('readiness'), Status.NOT_SERVING);
    assert.deepEqual(core.logged(/^catalog loaded$/), []);
    assert.equal(core.logged(/^core listening/).length, 1);

    await held.lock.query('select pg_advisory_unlock($1, $2)', [...MIGRATION_LOCK]);
    await until('core ready', async () => (await coreSays('readiness')) === Status.SERVING);
    const [catalog] = await core.untilLogged(/^catalog loaded$/);
    assert.equal(catalog?.products, TEST_CATALOG.length);
    assert.equal((await getProduct()).product?.productId, productId);
    assert.ok((await startScan()).runId);
    const started = await get('/health');
    assert.equal(started.status, 200);
    assert.equal(started.body.ok, true);
    assert.equal(started.body.core, undefined);
    // Said once each, as info: a deploy step, not an outage.
    await facade.untilLogged(/^health: core has started$/);
    assert.equal(facade.logged(/^health: core is starting/).length, 1);
    assert.equal(facade.logged(/^health: core has started$/).length, 1);
    assert.deepEqual(facade.logged(/^health: answering 503$/), []);
  });

  it('a SIGTERM while the migrations wait: stops waiting, closes, logs it and exits 0', async () => {
    await held.lock.query('select pg_advisory_lock($1, $2)', [...MIGRATION_LOCK]);
    try {
      // A drain delay that would keep a started core serving on: a core still starting skips it.
      const env = { ...held.env, SHUTDOWN_DRAIN_DELAY_MS: '20000', SHUTDOWN_TIMEOUT_MS: '60000' };
      const core = await startProcess('core', env, undefined, { ready: false });
      held.running.add(core);
      await until('core waiting for the migration lock', () => core.logged(/migration lock/).length > 0);
      await until('its wait queued in PostgreSQL', async () => (await lockHolders(false)) === 1);

      core.signal('SIGTERM');
      assert.equal(await core.exited, 0, core.output());
      const [stopping] = core.logged(/^stopping: not ready any more, draining$/);
      assert.deepEqual(
        { signal: stopping?.signal, starting: stopping?.starting, delay: stopping?.drain_delay_ms },
        { signal: 'SIGTERM', starting: true, delay: 0 },
      );
      assert.equal(core.logged(/^stopped while starting/).length, 1);
      assert.equal(core.logged(/^stopped$/).length, 1);
      assert.deepEqual(
        core.logged(/./).filter((line) => line.level === 'error' || line.level === 'fatal'),
        [],
        'no error nor fatal line',
      );
      assert.deepEqual(core.logged(/^catalog loaded$/), []);
      assert.equal(await lockHolders(false), 0, 'no backend left waiting for the lock');
      assert.equal(await lockHolders(true), 1, 'the lock still the test’s');
    } finally {
      await held.lock.query('select pg_advisory_unlock($1, $2)', [...MIGRATION_LOCK]);
    }
  });
});
