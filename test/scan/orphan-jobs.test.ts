import assert from 'node:assert/strict';
import { plainSql } from '../../services/core/db/plain-sql.ts';
import { handBackDeadPoolJobs } from '../../services/scan/dead-pool-jobs.ts';
import { PURGE_TASK } from '../../services/scan/scan-purge.ts';
import { uploadPhoto } from '../support/fixtures.ts';
import { callTool } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

const PHOTO = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
const DEAD_POOL = 'worker-of-a-core-that-died';

/**
 * A scan deleted while its analysis runs: graphile-worker cannot delete a locked job, so remove_job only
 * retires it (no key, no attempt left) and the running analysis ends it. When that analysis never ends —
 * its core dies, or its last write fails — the retired job, its payload naming the deleted scan, stayed in
 * graphile-worker's table for good: nothing runs, unlocks for a retry or deletes a job out of attempts.
 * The purge's run takes every analysis job whose scan is gone. The stack has no analyzer: analysis jobs
 * are only ever taken here, by hand, as a worker would take them.
 */
describe('analysis jobs of deleted scans', function () {
  this.timeout(60_000);
  let stack: Stack;

  before(async () => {
    stack = await startStack('orphan-jobs');
  });
  after(() => stack?.close());

  const query = async (text: string, params: unknown[] = []) =>
    (await (await plainSql(stack.orm)).query(text, params)).rows;
  /** Every analysis job whose payload names the scan, whatever its key. */
  const jobsOf = (runId: string) =>
    query(
      `select j.key, j.attempts, j.max_attempts from graphile_worker._private_jobs j
       join graphile_worker._private_tasks t on t.id = j.task_id
       where t.identifier = 'analyze_scan' and j.payload->>'run_id' = $1`,
      [runId],
    );

  /** Runs the purge job in the running core and waits until the worker has finished it. */
  async function purge(): Promise<void> {
    const [job] = await query('select (graphile_worker.add_job($1)).id', [PURGE_TASK]);
    for (let waited = 0; waited < 20_000; waited += 50) {
      const left = await query('select last_error from graphile_worker.jobs where id = $1', [job.id]);
      if (left.length === 0) return;
      assert.equal(left[0].last_error, null, 'the purge job failed');
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('the purge job did not run');
  }

  /** A scan whose photo a worker of DEAD_POOL has taken for analysis (as graphile-worker's get_job does). */
  async function underAnalysis() {
    const { run_id, access_token } = (await callTool(stack.baseUrl, 'start_skin_scan', { source: 'jobs' }))
      .structuredContent;
    await uploadPhoto(stack.orm, run_id, PHOTO);
    await query(
      `update graphile_worker._private_jobs set locked_at = now(), locked_by = $2, attempts = attempts + 1
       where key = $1`,
      [run_id, DEAD_POOL],
    );
    return { run_id, access_token };
  }

  it('a scan deleted under analysis by a core that then died leaves no job naming it after the purge', async () => {
    const scan = await underAnalysis();
    const kept = await underAnalysis();
    const deleted = await callTool(stack.baseUrl, 'delete_skin_scan', scan);
    assert.deepEqual(deleted.structuredContent, { run_id: scan.run_id, deleted: true });
    // graphile-worker's remove_job retires the running job: no key, every attempt used.
    assert.deepEqual(await jobsOf(scan.run_id), [{ key: null, attempts: 5, max_attempts: 5 }]);

    // The core holding it died: its jobs are unlocked (worker-liveness.ts). The kept scan's is handed back.
    await handBackDeadPoolJobs(await plainSql(stack.orm), [DEAD_POOL]);
    await purge();
    assert.deepEqual(await jobsOf(scan.run_id), [], 'a job still names the deleted scan');
    assert.deepEqual(await jobsOf(kept.run_id), [{ key: kept.run_id, attempts: 0, max_attempts: 5 }]);
  });

  it('a job that ran out of attempts for a deleted scan is taken too; a running one is left to its worker', async () => {
    const failed = await underAnalysis();
    const running = await underAnalysis();
    for (const scan of [failed, running]) await callTool(stack.baseUrl, 'delete_skin_scan', scan);
    // The worker's last write failed (graphile-worker's fail_job): unlocked, out of attempts, for good.
    await query(
      `update graphile_worker._private_jobs set locked_at = null, locked_by = null, last_error = 'connection lost'
       where payload->>'run_id' = $1`,
      [failed.run_id],
    );
    await purge();
    assert.deepEqual(await jobsOf(failed.run_id), []);
    // Locked by a live worker: it ends the job itself (graphile-worker refuses to delete it meanwhile).
    assert.deepEqual(await jobsOf(running.run_id), [{ key: null, attempts: 5, max_attempts: 5 }]);
    await query(`delete from graphile_worker._private_jobs where locked_by = $1`, [DEAD_POOL]);
  });
});
