/**
 * Several replicas of every process on one PostgreSQL, as Kubernetes runs them: two façades, two cores and
 * two inference processes, each tier behind a small round-robin (connection by connection, as a Service
 * spreads them). The per-network limit holds across façades; a catalog import reaches every core; scans
 * complete whichever replica takes the job; killing one replica of each loses no scan; a paused inference
 * makes a backlog that pauses admissions, which resume only under the lower bound.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { CatalogService } from '../../gen/skinmatch/v1/catalog_pb.ts';
import { freePort } from '../../scripts/port.ts';
import { singleFace } from '../inference/support/photos.ts';
import { uploadPhoto } from '../support/fixtures.ts';
import { callTool, errorCode } from '../support/mcp.ts';
import { type ProcessCluster, startCluster } from '../support/process-cluster.ts';
import { type RunningProcess, until } from '../support/processes.ts';
import { type RoundRobin, roundRobin } from '../support/round-robin.ts';

const FACES = ['a', 'b', 'c', 'd'] as const;
/** Automatic admissions: pause past 5 analysis jobs, resume at 1 or fewer. */
const PAUSE_QUEUED = 5;
const RESUME_QUEUED = 1;

describe('replicas of every process on one PostgreSQL', function () {
  this.timeout(240_000);
  let cluster: ProcessCluster;
  const rings: RoundRobin[] = [];
  let inference: [RunningProcess, RunningProcess];
  let core: [RunningProcess, RunningProcess];
  let facade: [RunningProcess, RunningProcess];
  let inferences: RoundRobin;
  let facades: RoundRobin;

  const start: ProcessCluster['start'] = (role, extra, port) => cluster.start(role, extra, port);
  const sql = <T>(query: string, params: unknown[] = []) => cluster.sql<T>(query, params);
  const tokens = new Map<string, string>();
  const health = async () => (await fetch(`${facades.url}/health`)).json() as Promise<Record<string, any>>;
  /** Starts scans through the façades, then sends each its photo (started first: a backlog pauses starts). */
  const newScans = async (count: number) => {
    const runIds: string[] = [];
    for (let n = 0; n < count; n++) {
      const started = await callTool(facades.url, 'start_skin_scan', { source: 'replicas' });
      assert.equal(started.isError, undefined, JSON.stringify(started.structuredContent));
      runIds.push(started.structuredContent.run_id as string);
      tokens.set(started.structuredContent.run_id, started.structuredContent.access_token);
    }
    return runIds;
  };
  const sendPhotos = async (runIds: readonly string[]) => {
    for (const [n, runId] of runIds.entries())
      await uploadPhoto(cluster.orm, runId, await singleFace(FACES[n % FACES.length]!));
  };
  const statuses = async (runIds: readonly string[]) =>
    (await sql<{ status: string }>('select status from scans where id in (?) order by id', [runIds])).map(
      (r) => r.status,
    );
  const allComplete = (runIds: readonly string[], timeoutMs = 60_000) =>
    until(
      'every scan complete',
      async () => (await statuses(runIds)).every((s) => s === 'complete'),
      timeoutMs,
    ).catch(async (err) => {
      throw new Error(`${(err as Error).message}: ${JSON.stringify(await statuses(runIds))}`);
    });
  const analysisJobs = async () =>
    (
      await sql<{ queued: number }>(
        `select count(*)::int as queued from graphile_worker.jobs
         where task_identifier = 'analyze_scan' and (locked_at is not null or attempts < max_attempts)`,
      )
    )[0]!.queued;

  before(async () => {
    // Every core replica shares the pepper (tokens) and the ALTCHA key.
    cluster = await startCluster('replicas');
    inference = [
      await start('inference', { INFERENCE_STAGE_DELAY_MS: '250' }),
      await start('inference', { INFERENCE_STAGE_DELAY_MS: '250' }),
    ];
    inferences = await roundRobin(inference.map((p) => p.port));
    rings.push(inferences);
    const coreEnv = {
      INFERENCE_URL: inferences.url,
      INFERENCE_TIMEOUT_MS: '30000',
      ADMISSIONS_PAUSE_QUEUED: String(PAUSE_QUEUED),
      ADMISSIONS_RESUME_QUEUED: String(RESUME_QUEUED),
      ADMISSIONS_CHECK_INTERVAL_MS: '200',
      LOG_LEVEL: 'debug',
    };
    core = await Promise.all([start('core', coreEnv), start('core', coreEnv)]);
    const cores = await roundRobin(core.map((p) => p.port));
    rings.push(cores);
    facades = await roundRobin([]);
    rings.push(facades);
    const ports = [await freePort(), await freePort()];
    const facadeEnv = {
      CORE_URL: cores.url,
      ALLOWED_HOSTS: [facades.url, ...ports.map((p) => `http://127.0.0.1:${p}`)]
        .map((url) => new URL(url).host)
        .join(','),
      // A budget small enough to exhaust: six calls an hour of one tool (no other test here calls it).
      RATE_LIMIT_TOOLS: 'delete_skin_scan=6/hour',
    };
    facade = (await Promise.all(ports.map((port) => start('facade', facadeEnv, port)))) as typeof facade;
    facades.backends.push(...ports);
  });
  after(async () => {
    await cluster?.stop();
    for (const ring of rings) await ring.close();
  });

  it('the per-network limit holds across façades: six calls in all, not six per replica', async () => {
    const outcomes: string[] = [];
    for (let call = 0; call < 10; call++) {
      const replica = facade[call % 2]!;
      // A scan that does not exist: answered not_found, but counted all the same.
      const result = await callTool(replica.url, 'delete_skin_scan', {
        run_id: randomUUID(),
        access_token: 'a'.repeat(64),
      });
      const code = errorCode(result);
      if (code === 'rate_limited') assert.ok(result.structuredContent.error.retry_after_seconds > 0);
      else assert.equal(code, 'not_found');
      outcomes.push(
        `${replica.port === facade[0].port ? 'F1' : 'F2'}:${code === 'rate_limited' ? code : 'served'}`,
      );
    }
    assert.deepEqual(outcomes, [
      ...['F1', 'F2', 'F1', 'F2', 'F1', 'F2'].map((f) => `${f}:served`),
      ...['F1', 'F2', 'F1', 'F2'].map((f) => `${f}:rate_limited`),
    ]);
  });

  it('a catalog import reaches every core', async () => {
    const file = join(cluster.env.DATA_DIR!, 'catalog.jsonl');
    writeFileSync(
      file,
      `${JSON.stringify({
        product_id: 'replica-1',
        name: 'Replica Serum',
        brand: 'Retail Brand',
        product_type: 'serum',
        country: 'GB',
        ingredients: 'Aqua, Glycerin, Niacinamide, Phenoxyethanol',
      })}\n`,
    );
    // As an operator runs it: a process of its own, on the database only.
    const run = spawnSync(process.execPath, ['scripts/catalog-import.ts', file], {
      env: { PATH: process.env.PATH, ...cluster.env, LOG_LEVEL: 'warn' },
      encoding: 'utf8',
    });
    assert.equal(run.status, 0, run.stderr);
    for (const replica of core) {
      const catalog = createClient(
        CatalogService,
        createConnectTransport({ baseUrl: replica.url, httpVersion: '2' }),
      );
      const product = await until(`core :${replica.port} serves the import`, () =>
        catalog.getProduct({ productId: 'replica-1' }).catch(() => undefined),
      );
      assert.equal(product!.product?.name, 'Replica Serum');
    }
  });

  it('scans complete whichever replica takes the job: both cores and both inference processes work', async () => {
    const runIds = await newScans(PAUSE_QUEUED);
    await sendPhotos(runIds);
    await allComplete(runIds);
    // graphile-worker logs a job completed once its scan is: wait for each core's line (none: it analysed none).
    for (const replica of core) await replica.untilLogged(/^Completed task \d+ \(analyze_scan/, 10_000);
    for (const replica of inference) assert.ok(inferences.given.get(replica.port)! > 0);
  });

  it('killing one replica of each (SIGKILL) mid-analysis loses no scan', async () => {
    const runIds = await newScans(PAUSE_QUEUED);
    const afterKill = runIds.pop()!;
    await sendPhotos(runIds);
    // Both cores hold an analysis under way when they are killed.
    await until('both cores analysing', async () => {
      const [row] = await sql<{ pools: number }>(
        `select count(distinct locked_by)::int as pools from graphile_worker.jobs
         where task_identifier = 'analyze_scan' and locked_by is not null`,
      );
      return row!.pools === 2;
    });
    for (const victim of [core[0], inference[0], facade[0]]) victim.signal('SIGKILL');
    await Promise.all([core[0], inference[0], facade[0]].map((p) => p.exited));
    // The survivors answer through the same round-robins, and take over the dead core's analyses.
    await sendPhotos([afterKill]);
    runIds.push(afterKill);
    const read = await callTool(facades.url, 'get_skin_scan', {
      run_id: afterKill,
      access_token: tokens.get(afterKill),
    });
    assert.equal(read.isError, undefined);
    await allComplete(runIds, 90_000);
    // The dead core's jobs were freed by the other (its line follows the freeing write).
    await core[1].untilLogged(/jobs of worker pools that died were handed back/, 10_000);
  });

  it('a paused inference makes a backlog that pauses admissions; they resume only under the lower bound', async () => {
    const survivor = inference[1];
    await until('admissions open', async () => (await health()).admissions_enabled === true);
    const runIds = await newScans(8);
    survivor.signal('SIGSTOP');
    await sendPhotos(runIds);
    const paused = await until('admissions paused by the backlog', async () => {
      const h = await health();
      return h.admissions_paused_by ? h : undefined;
    });
    assert.deepEqual(paused!.admissions_paused_by, ['backlog']);
    assert.equal(paused!.admissions_enabled, false);
    const refused = await callTool(facades.url, 'start_skin_scan', { source: 'backlog' });
    assert.equal(errorCode(refused), 'admissions_paused');
    // Reads keep working while paused.
    const read = await callTool(facades.url, 'get_skin_scan', {
      run_id: runIds[0],
      access_token: tokens.get(runIds[0]!),
    });
    assert.equal(read.isError, undefined);

    survivor.signal('SIGCONT');
    const samples: { queued: number; paused: boolean }[] = [];
    await until(
      'admissions resumed',
      async () => {
        const [queued, h] = await Promise.all([analysisJobs(), health()]);
        samples.push({ queued, paused: h.admissions_enabled === false });
        return h.admissions_enabled === true;
      },
      90_000,
    );
    assert.ok(
      samples.some((s) => s.paused && s.queued <= PAUSE_QUEUED && s.queued > RESUME_QUEUED),
      `still paused below the pause bound, above the resume bound: ${JSON.stringify(samples)}`,
    );
    const resumed = (await core[1].untilLogged(/analysis backlog cleared/)).at(-1);
    assert.ok(resumed && (resumed.queued as number) <= RESUME_QUEUED, JSON.stringify(resumed));
    const pausedAt = core[1].logged(/analysis backlog over its bound/).at(-1);
    assert.ok(pausedAt && (pausedAt.queued as number) > PAUSE_QUEUED, JSON.stringify(pausedAt));
    await allComplete(runIds, 90_000);
    const again = await callTool(facades.url, 'start_skin_scan', { source: 'backlog' });
    assert.equal(again.isError, undefined);
  });
});
