/**
 * The connection on which core records a job's outcome terminated under it (PostgreSQL shutting down, a
 * failover, pg_terminate_backend), through real processes: core lives on, records the outcome again on a
 * fresh connection, and the job is gone. The cut is made by the database itself, deterministically: a
 * trigger terminates its own backend the first time an analysis job is deleted (graphile-worker's
 * completeJob). Before, graphile-worker did not retry that code and its promise was not awaited: the
 * unhandled rejection ended core (exit 1).
 */
import assert from 'node:assert/strict';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { ScanService } from '../../gen/skinmatch/v1/scan_pb.ts';
import { singleFace } from '../inference/support/photos.ts';
import { uploadPhoto } from '../support/fixtures.ts';
import { type ProcessCluster, startCluster } from '../support/process-cluster.ts';
import { type RunningProcess, until } from '../support/processes.ts';

describe('the connection recording a job’s outcome terminated, through real processes', function () {
  this.timeout(300_000);
  let cluster: ProcessCluster;
  let core: RunningProcess;
  const sql = <T>(query: string, params: unknown[] = []) => cluster.sql<T>(query, params);

  before(async () => {
    cluster = await startCluster('outcome-cut');
    const inference = await cluster.start('inference');
    cluster.env.INFERENCE_URL = inference.url;
    core = await cluster.start('core');
    await sql('create sequence public.outcome_cuts');
    await sql(`create function public.cut_first_outcome() returns trigger language plpgsql as $$
      begin
        if old.task_id = (select id from graphile_worker._private_tasks where identifier = 'analyze_scan')
           and nextval('public.outcome_cuts') = 1 then
          perform pg_terminate_backend(pg_backend_pid());
        end if;
        return old;
      end $$`);
    await sql(`create trigger cut_first_outcome before delete on graphile_worker._private_jobs
      for each row execute function public.cut_first_outcome()`);
  });
  after(async () => {
    await cluster?.stop();
  });

  it('core lives on and the completed analysis’s job is deleted on a fresh connection', async () => {
    const scans = createClient(ScanService, createGrpcTransport({ baseUrl: core.url }));
    const { runId } = await scans.startScan({ source: 'outcome-cut' });
    await uploadPhoto(cluster.orm, runId, await singleFace('a'));
    const exited = () => core.child.exitCode !== null || core.child.signalCode !== null;
    const jobs = async () =>
      (
        await sql<{ n: number }>('select count(*)::int as n from graphile_worker.jobs where key = ?', [runId])
      )[0]!.n;
    await until('the job deleted, or core ended', async () => exited() || (await jobs()) === 0, 60_000);
    const [cuts] = await sql<{ n: string }>('select last_value as n from public.outcome_cuts');
    const [scan] = await sql<{ status: string }>('select status from scans where id = ?', [runId]);
    assert.deepEqual(
      { exitCode: core.child.exitCode, cuts: Number(cuts!.n), jobs: await jobs(), status: scan!.status },
      { exitCode: null, cuts: 2, jobs: 0, status: 'complete' },
      core.output().slice(-1500),
    );
  });
});
