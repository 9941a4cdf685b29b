/**
 * A photo that makes core die while analysing it (out of memory, an abort), through real processes: each
 * time a core takes the photo's analysis, it is killed (SIGKILL, as the kernel's OOM killer does) and a new
 * one started. The photo is not taken again forever: after MAX_ANALYSIS_CRASHES deaths its scan fails with
 * `photo_unprocessable` and `ask_person_to_retake`, the photo and its job are gone, and the queue goes on.
 * Before, a crash on the analysis's last attempt gave every attempt back, and the cores died on it forever.
 */
import assert from 'node:assert/strict';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { ScanService } from '../../gen/skinmatch/v1/scan_pb.ts';
import { NextAction, ScanStatus } from '../../gen/skinmatch/v1/scan_types_pb.ts';
import { MAX_ANALYSIS_CRASHES } from '../../services/scan/dead-pool-jobs.ts';
import { singleFace } from '../inference/support/photos.ts';
import { uploadPhoto } from '../support/fixtures.ts';
import { type ProcessCluster, startCluster } from '../support/process-cluster.ts';
import { type RunningProcess, until } from '../support/processes.ts';

describe('a photo that makes core die each time it is analysed, through real processes', function () {
  this.timeout(300_000);
  let cluster: ProcessCluster;
  let core: RunningProcess;

  const sql = <T>(query: string, params: unknown[] = []) => cluster.sql<T>(query, params);
  const scans = () => createClient(ScanService, createGrpcTransport({ baseUrl: core.url }));
  const newScan = async (face: 'a' | 'b') => {
    const { runId, accessToken } = await scans().startScan({ source: 'poison' });
    await uploadPhoto(cluster.orm, runId, await singleFace(face));
    return { runId, accessToken };
  };
  /** The scan's status, and the worker pool that holds its analysis. */
  const state = async (runId: string) =>
    (
      await sql<{ status: string; pool: string | null }>(
        `select s.status, (select j.locked_by from graphile_worker.jobs j where j.key = s.id::text) as pool
         from scans s where s.id = ?`,
        [runId],
      )
    )[0]!;

  before(async () => {
    cluster = await startCluster('poison');
    // Stages of 400 ms: the analysis is under way, in the core, for two seconds.
    const inference = await cluster.start('inference', { INFERENCE_STAGE_DELAY_MS: '400' });
    cluster.env.INFERENCE_URL = inference.url;
    core = await cluster.start('core');
  });
  after(async () => {
    await cluster?.stop();
  });

  it(`fails the scan with photo_unprocessable after ${MAX_ANALYSIS_CRASHES} crashes, and the queue goes on`, async () => {
    const poison = await newScan('a');
    let crashes = 0;
    const killed = new Set<string>();
    // Up to two crashes more than the bound: on the old code the photo is still being analysed then.
    while (crashes < MAX_ANALYSIS_CRASHES + 2) {
      // Analysed by the running core: locked by a pool that is not one killed before.
      const now = await until<{ status: string; pool: string | null } | undefined>(
        'the photo analysed, or its scan settled',
        async () => {
          const s = await state(poison.runId);
          const analysed = s.status === 'analyzing' && s.pool !== null && !killed.has(s.pool);
          return analysed || s.status === 'failed' || s.status === 'complete' ? s : undefined;
        },
        60_000,
      );
      if (now?.status !== 'analyzing') break;
      killed.add(now.pool!);
      core.signal('SIGKILL');
      await core.exited;
      cluster.running.delete(core);
      crashes++;
      core = await cluster.start('core');
    }
    const { scan } = await scans().getScan(poison);
    assert.deepEqual(
      [scan!.status, scan!.failureReason, scan!.nextAction, crashes],
      [ScanStatus.FAILED, 'photo_unprocessable', NextAction.ASK_PERSON_TO_RETAKE, MAX_ANALYSIS_CRASHES],
    );
    const left = await sql<{ photos: number; jobs: number }>(
      `select (select count(*)::int from scan_photos where run_id = ?) as photos,
         (select count(*)::int from graphile_worker.jobs where key = ?) as jobs`,
      [poison.runId, poison.runId],
    );
    assert.deepEqual(left, [{ photos: 0, jobs: 0 }], 'the photo and its job are gone');
    // Logged once the write that failed the scan has committed: wait for the line, as for the state.
    await until(
      'core to log the scan failed for its photo',
      () =>
        core.logged(/photos core died analysing/).some((l) => (l.run_ids as string[]).includes(poison.runId)),
      10_000,
    );

    // The core left running analyses the next photo as usual.
    const next = await newScan('b');
    await until(
      'the next scan complete',
      async () => (await state(next.runId)).status === 'complete',
      60_000,
    );
  });
});
