/**
 * Every database connection of two live cores terminated (pg_terminate_backend, as a PostgreSQL restart or
 * a failover cuts them) while both analyse, through real processes: each core takes its worker pool's
 * advisory lock again, and neither takes the other for dead. Before, the first core to look after a cut
 * found the other's lock missing, counted a crash against each photo it was analysing and handed its jobs
 * back, so they were analysed twice — and a photo under way at three cuts failed `photo_unprocessable`,
 * the person asked to retake a photo no core ever died on.
 */
import assert from 'node:assert/strict';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { ScanService } from '../../gen/skinmatch/v1/scan_pb.ts';
import { MAX_ANALYSIS_CRASHES } from '../../services/scan/dead-pool-jobs.ts';
import { singleFace } from '../inference/support/photos.ts';
import { uploadPhoto } from '../support/fixtures.ts';
import { type ProcessCluster, startCluster } from '../support/process-cluster.ts';
import { type RunningProcess, until } from '../support/processes.ts';

const FACES = ['a', 'b', 'c', 'd'] as const;

describe('database connections of live cores cut mid-analysis, through real processes', function () {
  this.timeout(300_000);
  let cluster: ProcessCluster;
  let cores: RunningProcess[];

  /** The test's own reads; its connections are cut too, so a read that meets a cut one is made again. */
  const sql = async <T>(query: string, params: unknown[] = []): Promise<T[]> => {
    for (let tries = 1; ; tries++) {
      try {
        return await cluster.sql<T>(query, params);
      } catch (err) {
        if (tries === 5) throw err;
      }
    }
  };
  const handedBack = () => cores.flatMap((core) => core.logged(/worker pools that died/));

  before(async () => {
    cluster = await startCluster('lock-cut');
    // Stages of 6 s: each analysis is under way for half a minute, through every cut.
    const inference = await cluster.start('inference', { INFERENCE_STAGE_DELAY_MS: '6000' });
    cluster.env.INFERENCE_URL = inference.url;
    cluster.env.INFERENCE_TIMEOUT_MS = '120000';
    cores = [await cluster.start('core'), await cluster.start('core')];
  });
  after(async () => {
    await cluster?.stop();
  });

  it(`${MAX_ANALYSIS_CRASHES} cuts: no crash counted, no job handed back, every scan complete`, async () => {
    const scans = createClient(ScanService, createGrpcTransport({ baseUrl: cores[0]!.url }));
    const runIds: string[] = [];
    for (const face of FACES) {
      const { runId } = await scans.startScan({ source: 'lock-cut' });
      await uploadPhoto(cluster.orm, runId, await singleFace(face));
      runIds.push(runId);
    }
    for (let cut = 1; cut <= MAX_ANALYSIS_CRASHES; cut++) {
      // Both cores hold analyses locked long enough (5 s) for the other to look at their lock.
      await until(
        'both cores analysing, for long enough',
        async () => {
          const [row] = await sql<{ pools: number }>(
            `select count(distinct locked_by)::int as pools from graphile_worker.jobs
             where task_identifier = 'analyze_scan' and locked_at < now() - interval '6 seconds'`,
          );
          return row!.pools === 2;
        },
        60_000,
      );
      await sql(
        `select pg_terminate_backend(pid) from pg_stat_activity
         where datname = current_database() and pid <> pg_backend_pid()`,
      );
      for (const core of cores) {
        await until(
          `core to lose its lock (cut ${cut})`,
          () => core.logged(/the lock’s connection was lost/).length >= cut,
        );
      }
      // Both pools' locks held again.
      await until('both locks taken again', async () => {
        const [row] = await sql<{ held: number }>(
          `select count(*)::int as held from pg_locks
           where locktype = 'advisory' and granted and classid = ${0x5c1a} and objsubid = 2`,
        );
        return row!.held === 2;
      });
      const [crashes] = await sql<{ most: number | null }>(
        'select max(analysis_crashes)::int as most from scan_photos where run_id in (?)',
        [runIds],
      );
      assert.equal(crashes!.most ?? 0, 0, `no crash counted after cut ${cut}`);
    }
    await until(
      'every scan complete',
      async () =>
        (await sql<{ status: string }>('select status from scans where id in (?)', [runIds])).every(
          (r) => r.status === 'complete',
        ),
      120_000,
    ).catch(async (err) => {
      const rows = await sql('select status, failure_reason from scans where id in (?)', [runIds]);
      throw new Error(`${(err as Error).message}: ${JSON.stringify(rows)}`);
    });
    assert.deepEqual(handedBack(), [], 'no live core was taken for dead');
  });
});
