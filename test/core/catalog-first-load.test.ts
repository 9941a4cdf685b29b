/**
 * Core answers while its first catalog load runs, through real core and façade processes. Core opened its
 * port only once the whole catalog was loaded (about 5 s at 40 000 products, far longer for a large
 * catalog): meanwhile probes and callers got connection refused, as from a dead process, and a load longer
 * than the chart's startup probe allows had the pod restarted. Now it listens at once: grpc.health.v1's
 * `readiness` check NOT_SERVING (the chart's readinessProbe) while the overall status SERVING (the
 * database answers: the startupProbe), the catalog's calls `catalog_unavailable`, the façade's /health
 * `catalog: loading`; ready once the load has ended.
 *
 * The load is held by the database itself: the test holds an exclusive lock on the products table, so
 * core's `select … from products` waits as it waits on a large catalog, for as long as the test wants.
 */
import assert from 'node:assert/strict';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { ErrorInfoSchema } from '../../gen/google/rpc/error_details_pb.ts';
import { Health, HealthCheckResponse_ServingStatus as Status } from '../../gen/grpc/health/v1/health_pb.ts';
import { CatalogService } from '../../gen/skinmatch/v1/catalog_pb.ts';
import { TEST_CATALOG } from '../support/fixtures.ts';
import { heldDatabase } from '../support/held-database.ts';
import { startProcess, until } from '../support/processes.ts';

describe('core’s first catalog load, through real core and façade processes', function () {
  this.timeout(180_000);
  const held = heldDatabase('first-load');

  it('answers not ready and catalog_unavailable while the load runs, ready once it has ended', async () => {
    await held.lock.query('begin');
    await held.lock.query('lock table products in access exclusive mode');
    // Resolves once core listens: before, not until the load had ended (startProcess gives up after 60 s).
    const core = await startProcess('core', held.env, undefined, { ready: false });
    held.running.add(core);
    const health = createClient(Health, createConnectTransport({ baseUrl: core.url, httpVersion: '2' }));
    const coreSays = async (service: string) => (await health.check({ service }, { timeoutMs: 3000 })).status;
    const catalog = createClient(
      CatalogService,
      createConnectTransport({ baseUrl: core.url, httpVersion: '2' }),
    );
    const productId = TEST_CATALOG[0]!.product_id;
    const getProduct = () => catalog.getProduct({ productId }, { timeoutMs: 3000 });

    assert.equal(await coreSays('readiness'), Status.NOT_SERVING);
    assert.equal(await coreSays(''), Status.SERVING, 'the database answers: the startup probe passes');
    assert.equal(
      await coreSays('liveness'),
      Status.SERVING,
      'alive while it loads: the liveness probe passes',
    );
    const refusal = () =>
      getProduct().then(
        () => assert.fail('served a product before the catalog was loaded'),
        (err: unknown) => ConnectError.from(err),
      );
    // Every call is `unavailable` until core's migrations have ended (test/core/migration-lock.test.ts).
    const refused: ConnectError = await until('core past its migrations', async () => {
      const err = await refusal();
      return err.findDetails(ErrorInfoSchema)[0]?.reason === 'unavailable' ? undefined : err;
    }).then((err) => err!);
    assert.equal(refused.code, Code.Unavailable);
    assert.equal(refused.findDetails(ErrorInfoSchema)[0]?.reason, 'catalog_unavailable');

    const facade = await startProcess('facade', { ...held.env, CORE_URL: core.url });
    held.running.add(facade);
    const get = async (path: string) => {
      const res = await fetch(new URL(path, facade.url), { signal: AbortSignal.timeout(3000) });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const loading = await get('/health');
    assert.equal(loading.status, 200);
    assert.equal(loading.body.catalog, 'loading');
    assert.equal(loading.body.catalog_tools_enabled, false);
    assert.deepEqual(await get('/ready'), { status: 200, body: { ready: true } });
    // Still loading all along: nothing above was answered by a loaded catalog.
    assert.equal(await coreSays('readiness'), Status.NOT_SERVING);
    assert.deepEqual(core.logged(/^catalog loaded$/), []);
    assert.equal(core.logged(/^core listening/).length, 1);

    await held.lock.query('commit');
    await until('core ready', async () => (await coreSays('readiness')) === Status.SERVING);
    const [loadedLine] = await core.untilLogged(/^catalog loaded$/);
    assert.equal(loadedLine?.products, TEST_CATALOG.length);
    assert.equal((await getProduct()).product?.productId, productId);
    const loaded = await get('/health');
    assert.equal(loaded.status, 200);
    assert.equal(loaded.body.catalog, undefined);
    assert.equal(loaded.body.catalog_tools_enabled, true);
  });
});
