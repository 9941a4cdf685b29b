/**
 * PostgreSQL restarted (a failover, an upgrade, a crash) while core analyses a scan, through real processes
 * on a PostgreSQL server of this test's own: core outlives the outage, the scan caught in it completes after
 * a retry (and one caught on its last attempt fails as such, never stuck), reads and /health come back by
 * themselves, and WatchScan follows a new scan to its end. The analyses the outage broke were cancelled in
 * inference, which then stops at once.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { ScanService } from '../../gen/skinmatch/v1/scan_pb.ts';
import { ScanStatus } from '../../gen/skinmatch/v1/scan_types_pb.ts';
import { freePort } from '../../scripts/port.ts';
import { type EmbeddedDatabase, startEmbeddedPostgres } from '../../services/core/db/embedded.ts';
import { openDatabase } from '../../services/core/db/orm.ts';
import { singleFace } from '../inference/support/photos.ts';
import { uploadPhoto } from '../support/fixtures.ts';
import { callTool, untilScan } from '../support/mcp.ts';
import {
  type Role,
  type RunningProcess,
  serviceEnv,
  startProcess,
  stopAll,
  until,
} from '../support/processes.ts';

describe('a PostgreSQL restart while core analyses a scan, through real processes', function () {
  this.timeout(240_000);
  const running = new Set<RunningProcess>();
  // A server of this test's own (the other tests share theirs), in .data so its `postgres` user reaches it.
  const pgDir = resolve(`.data/test-pg-restart-${process.pid}`);
  let server: EmbeddedDatabase;
  let pgPort: number;
  let databaseUrl: string;
  let dir: string;
  const procs: Partial<Record<Role, RunningProcess>> = {};

  const start = async (role: Role, env: NodeJS.ProcessEnv) => {
    const process = await startProcess(role, env);
    running.add(process);
    procs[role] = process;
    return process;
  };
  /** A scan with its photo stored, as the upload page leaves it. */
  const newScan = async (face: 'a' | 'b', maxAttempts?: number) => {
    const { structuredContent } = await callTool(procs.facade!.url, 'start_skin_scan', { source: 'pg' });
    const orm = await openDatabase(databaseUrl);
    try {
      await uploadPhoto(orm, structuredContent.run_id, await singleFace(face), maxAttempts);
    } finally {
      await orm.close();
    }
    return {
      run_id: structuredContent.run_id as string,
      access_token: structuredContent.access_token as string,
    };
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'skinmatch-pg-restart-'));
    pgPort = await freePort();
    server = await startEmbeddedPostgres(pgDir, pgPort);
    databaseUrl = server.url;
    const env = {
      ...serviceEnv(dir, databaseUrl),
      // This test polls: the network's budgets are not what it is about.
      RATE_LIMIT_CALLS_PER_MINUTE: '100000',
      RATE_LIMIT_REQUESTS_PER_MINUTE: '100000',
    };
    await start('migrate', env);
    // Stages of 600 ms: the analysis is still under way when PostgreSQL stops.
    await start('inference', { ...env, INFERENCE_STAGE_DELAY_MS: '600', SHUTDOWN_DRAIN_DELAY_MS: '0' });
    await start('core', { ...env, INFERENCE_URL: procs.inference!.url });
    await start('facade', { ...env, CORE_URL: procs.core!.url });
  });
  after(async () => {
    await stopAll(running);
    await server?.stop();
    rmSync(pgDir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  });

  it('core lives on, the scan caught by the outage completes, and WatchScan follows a new scan', async () => {
    const core = procs.core!;
    const scan = await newScan('a');
    // On its last attempt (its only one): the outage also keeps the worker from recording that it failed.
    const last = await newScan('b', 1);
    for (const analysed of [scan, last]) {
      await untilScan(procs.facade!.url, analysed, (s) => s.status === 'analyzing' && s.progress > 0, 30_000);
    }

    await server.stop();
    // The analysis fails on its next write; recording that failure needs the database too.
    const down = await until('the outage seen', async () => {
      const result = await callTool(procs.facade!.url, 'get_skin_scan', scan);
      return result.isError ? result.structuredContent.error : undefined;
    });
    assert.equal(down.code, 'unavailable');
    // Each job failed on a write mid-stream and cancelled its call: inference stopped analysing for nobody.
    const analyses = () =>
      procs.inference!.logged(/^rpc$/).filter((line) => String(line.procedure).endsWith('/AnalyzeFace'));
    await until('both analyses cancelled', () => analyses().length === 2, 15_000);
    assert.deepEqual(
      analyses().map((line) => line.code),
      ['Canceled', 'Canceled'],
    );
    await new Promise((resolve) => setTimeout(resolve, 3000));
    server = await startEmbeddedPostgres(pgDir, pgPort);

    const done = await untilScan(procs.facade!.url, scan, (s) => s.status === 'complete', 60_000).catch(
      (err: Error) => {
        throw new Error(`${err.message}; core ${core.child.exitCode === null ? 'running' : 'ended'}`);
      },
    );
    assert.equal(done.next_action, 'recommend_products');
    // Its job is failed for good: the scan fails as after a last failed attempt, never stuck in analyzing.
    const failed = await untilScan(procs.facade!.url, last, (s) => s.status !== 'analyzing', 60_000);
    assert.deepEqual(
      [failed.status, failed.failure_reason, failed.next_action],
      ['failed', 'analysis_unavailable', 'share_upload_url'],
    );
    assert.equal(core.child.exitCode, null, `core ended: ${core.output().slice(-600)}`);
    await until(
      '/health ready again',
      async () => (await fetch(`${procs.facade!.url}/health`)).status === 200,
    );

    // Notifications flow again: WatchScan streams a scan started after the restart to its end.
    const next = await newScan('a');
    const scans = createClient(ScanService, createGrpcTransport({ baseUrl: core.url }));
    const seen: ScanStatus[] = [];
    for await (const { scan: state } of scans.watchScan(
      { runId: next.run_id, accessToken: next.access_token },
      { timeoutMs: 60_000 },
    )) {
      if (seen.at(-1) !== state!.status) seen.push(state!.status);
    }
    assert.equal(seen.at(-1), ScanStatus.COMPLETE);
    assert.equal(core.child.exitCode, null);

    // No stream of the outage is left open: inference stops at once on SIGTERM, exit 0. One left open would
    // hold it to its 25 s bound (then exit 1); 10 s leaves a loaded machine (CI, load 7-10) room to run the
    // process's exit late and still tells the two apart.
    const stopping = performance.now();
    procs.inference!.signal('SIGTERM');
    assert.equal(await procs.inference!.exited, 0, procs.inference!.output().slice(-600));
    assert.ok(
      performance.now() - stopping < 10_000,
      `stopped in ${Math.round(performance.now() - stopping)} ms`,
    );
  });
});
