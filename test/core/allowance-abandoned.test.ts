/**
 * recommend_products given up before its answer — the façade's deadline passed and it answered
 * `unavailable` (try again) — while core was slow, through real processes: the scan's one match is not
 * spent on an answer nobody received, so the call made again gets the products. Core is paused (SIGSTOP)
 * to be slow on demand.
 */
import assert from 'node:assert/strict';
import { completeScan, RED_ACNE_SCORES } from '../support/fixtures.ts';
import { callTool, errorCode } from '../support/mcp.ts';
import { type ProcessCluster, startCluster } from '../support/process-cluster.ts';
import { type RunningProcess, until } from '../support/processes.ts';

describe('recommend_products given up while core is slow, through real processes', function () {
  this.timeout(120_000);
  let cluster: ProcessCluster;
  let core: RunningProcess;
  let facade: RunningProcess;

  before(async () => {
    cluster = await startCluster('abandoned');
    core = await cluster.start('core', { LOAD_SAMPLE_CATALOG: 'true', INFERENCE_URL: 'http://127.0.0.1:1' });
    facade = await cluster.start('facade', { CORE_URL: core.url, MCP_REQUEST_TIMEOUT_MS: '1500' });
    await until('the catalog loaded', async () => {
      const health = (await (await fetch(`${facade.url}/health`)).json()) as Record<string, unknown>;
      return health.ok === true && health.catalog === undefined;
    });
  });
  after(async () => {
    core?.signal('SIGCONT');
    await cluster?.stop();
  });

  const completedScan = async () => {
    const { structuredContent } = await callTool(facade.url, 'start_skin_scan', { source: 'abandoned' });
    await completeScan(cluster.orm, structuredContent.run_id, RED_ACNE_SCORES);
    return {
      run_id: structuredContent.run_id as string,
      access_token: structuredContent.access_token as string,
    };
  };
  /** Core resumed, and given the time to serve what it had received meanwhile. */
  const resume = async () => {
    core.signal('SIGCONT');
    await callTool(facade.url, 'start_skin_scan', { source: 'after' });
  };
  const productsOf = async (scan: object) => {
    const result = await callTool(facade.url, 'recommend_products', scan);
    assert.equal(errorCode(result), undefined);
    return result.structuredContent;
  };

  it('answered unavailable at the façade’s deadline: the call made again gets the products', async () => {
    const scan = await completedScan();
    core.signal('SIGSTOP');
    const late = await callTool(facade.url, 'recommend_products', scan);
    assert.equal(errorCode(late), 'unavailable');
    await resume();
    const again = await productsOf(scan);
    assert.equal(again.products.length, 5); // 0 and upgrade_required on the old code
    assert.equal(again.entitlement.upgrade_required, false);
  });
});
