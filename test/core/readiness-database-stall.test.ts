/**
 * Readiness during a database stall (PostgreSQL SIGSTOPped), through real core and façade processes. The
 * chart's readiness probes followed the database (the façade's was /health, core's the overall
 * grpc.health.v1 status), so a stall took every pod of both tiers out of their Services together and
 * clients got the ingress's bare 503. Now each pod stays ready — the façade's GET /ready 200, core's
 * `readiness` check SERVING — and answers the outage itself (a tool call: `unavailable`), while /health
 * and core's overall status still report the database for operators; all is well again once it resumes.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { Health, HealthCheckResponse_ServingStatus as Status } from '../../gen/grpc/health/v1/health_pb.ts';
import { freePort } from '../../scripts/port.ts';
import { type EmbeddedDatabase, startEmbeddedPostgres } from '../../services/core/db/embedded.ts';
import { callTool, errorCode } from '../support/mcp.ts';
import { signalServer } from '../support/postgres-signal.ts';
import { type RunningProcess, serviceEnv, startProcess, stopAll, until } from '../support/processes.ts';

describe('readiness while PostgreSQL is stopped, through real core and façade processes', function () {
  this.timeout(180_000);
  const running = new Set<RunningProcess>();
  const pgDir = resolve(`.data/test-pg-ready-${process.pid}`);
  let server: EmbeddedDatabase;
  let dir: string;
  let core: RunningProcess;
  let facade: RunningProcess;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'skinmatch-pg-ready-'));
    server = await startEmbeddedPostgres(pgDir, await freePort());
    const env = serviceEnv(dir, server.url);
    running.add(await startProcess('migrate', env));
    core = await startProcess('core', env);
    running.add(core);
    facade = await startProcess('facade', { ...env, CORE_URL: core.url });
    running.add(facade);
  });
  after(async () => {
    await stopAll(running);
    await server?.stop();
    rmSync(pgDir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  });

  it('the façade’s /ready and core’s readiness stay ready, /health and the overall status report the outage', async () => {
    const health = createClient(Health, createConnectTransport({ baseUrl: core.url, httpVersion: '2' }));
    const coreSays = async (service: string) => (await health.check({ service }, { timeoutMs: 3000 })).status;
    const get = async (path: string) => {
      const res = await fetch(new URL(path, facade.url), { signal: AbortSignal.timeout(3000) });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    await until('/health 200 (the catalog loaded)', async () => (await get('/health')).status === 200);
    assert.deepEqual(await get('/ready'), { status: 200, body: { ready: true } });
    assert.equal(await coreSays('readiness'), Status.SERVING);

    signalServer(pgDir, 'SIGSTOP');
    try {
      // The operators' view: the database does not answer.
      const down = await until('/health 503', async () => {
        const answer = await get('/health');
        return answer.status === 503 ? answer : undefined;
      });
      assert.ok(down);
      assert.equal(down.body.ok, false);
      assert.equal(down.body.photo_intake, 'unavailable');
      assert.equal(await coreSays(''), Status.NOT_SERVING);
      // The probes' view, asked as the kubelet asks them for a few seconds of the stall: still ready.
      for (let i = 0; i < 8; i += 1) {
        assert.deepEqual(await get('/ready'), { status: 200, body: { ready: true } }, `/ready, ${i}`);
        assert.equal(await coreSays('readiness'), Status.SERVING, `core readiness, ${i}`);
        await sleep(500);
      }
      // And a pod left in rotation answers the outage itself.
      const refused = await callTool(facade.url, 'start_skin_scan', { source: 'stall' });
      assert.equal(errorCode(refused), 'unavailable');
      assert.equal(typeof refused.structuredContent.error.retry_after_seconds, 'number');
    } finally {
      signalServer(pgDir, 'SIGCONT');
    }
    await until('/health 200 again', async () => (await get('/health')).status === 200, 30_000);
    assert.equal(await coreSays(''), Status.SERVING);
  });
});
