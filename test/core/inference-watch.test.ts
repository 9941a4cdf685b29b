/**
 * Core says when inference does not serve, before any photo fails: a core whose inference is not there
 * logs one warning and exports skinmatch_inference_serving 0; once inference serves on that address, one
 * info line and 1. /health is not changed by it.
 */
import assert from 'node:assert/strict';
import { freePort } from '../../scripts/port.ts';
import type { ProcessCluster } from '../support/process-cluster.ts';
import { startCluster } from '../support/process-cluster.ts';
import { type RunningProcess, until } from '../support/processes.ts';

const DOWN = /^inference does not serve/;
const BACK = /^inference serves again/;

async function serving(metricsPort: number): Promise<number | undefined> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('skinmatch_inference_serving '));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

describe('core watches inference between analyses', function () {
  this.timeout(120_000);
  let cluster: ProcessCluster;
  let core: RunningProcess;
  let inferencePort: number;
  let metricsPort: number;

  before(async () => {
    cluster = await startCluster('inference-watch');
    inferencePort = await freePort();
    metricsPort = await freePort();
    core = await cluster.start('core', {
      CORE_METRICS_PORT: String(metricsPort),
      INFERENCE_URL: `http://127.0.0.1:${inferencePort}`,
    });
  });
  after(() => cluster?.stop());

  it('warns once while inference is not there, and exports 0', async () => {
    await until('the warning', () => core.logged(DOWN).length > 0, 10_000);
    assert.equal(await serving(metricsPort), 0);
    // Checks go on every 5 s: still one line.
    await new Promise((r) => setTimeout(r, 5500));
    const warnings = core.logged(DOWN);
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0]!.level, 'warn');
    assert.match(String(warnings[0]!.err), /ECONNREFUSED|unavailable/i);
    assert.equal(await serving(metricsPort), 0);
  });

  it('says once that inference serves again, and exports 1', async () => {
    await cluster.start('inference', { INFERENCE_METRICS_PORT: String(await freePort()) }, inferencePort);
    await until('the info line', () => core.logged(BACK).length > 0, 30_000);
    assert.equal(core.logged(BACK)[0]!.level, 'info');
    assert.equal(await serving(metricsPort), 1);
    assert.equal(core.logged(DOWN).length, 1);
  });
});
