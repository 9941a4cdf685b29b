/**
 * A deletion takes the scan's row and then, by cascade, its photo's. The background paths that fail a scan —
 * a photo no job will analyse (stranded-scans.ts) and a photo that crashed its cores too often
 * (dead-pool-jobs.ts) — locked the photo first and the scan after: a deletion arriving between the two
 * deadlocked with them, and PostgreSQL failed one, often the person's deletion. Here the deletion is held
 * with the scan's row locked while the background path runs, then completed: both must succeed.
 */
import assert from 'node:assert/strict';
import type pg from 'pg';
import { plainSql } from '../../services/core/db/plain-sql.ts';
import { handBackDeadPoolJobs, MAX_ANALYSIS_CRASHES } from '../../services/scan/dead-pool-jobs.ts';
import { failStrandedScans } from '../../services/scan/stranded-scans.ts';
import { uploadPhoto } from '../support/fixtures.ts';
import { callTool } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

const PHOTO = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
const DEAD_POOL = 'worker-of-a-core-that-died';

describe('a deletion while a background path fails the scan', function () {
  this.timeout(60_000);
  let stack: Stack;
  let pool: pg.Pool;

  before(async () => {
    stack = await startStack('deletion-lock-order');
    pool = await plainSql(stack.orm);
  });
  after(() => stack?.close());

  async function uploadedScan(): Promise<string> {
    const { run_id } = (await callTool(stack.baseUrl, 'start_skin_scan', { source: 'locks' }))
      .structuredContent;
    await uploadPhoto(stack.orm, run_id, PHOTO);
    return run_id;
  }

  /**
   * Runs `background` while a deletion of the scan holds its row, lets the deletion go on once `background`
   * has had time to take what it takes, and answers how each ended ('ok' or PostgreSQL's error code).
   */
  async function deleteDuring(runId: string, background: () => Promise<unknown>) {
    const deletion = await pool.connect();
    try {
      await deletion.query('begin');
      await deletion.query('select 1 from scans where id = $1 for update', [runId]);
      const ran = background().then(
        () => 'ok',
        (err: { code?: string }) => err.code ?? String(err),
      );
      await new Promise((r) => setTimeout(r, 300));
      const deleted = await deletion.query('delete from scans where id = $1', [runId]).then(
        () => 'ok',
        (err: { code?: string }) => err.code ?? String(err),
      );
      await deletion.query(deleted === 'ok' ? 'commit' : 'rollback');
      return { deleted, background: await ran };
    } finally {
      deletion.release();
    }
  }

  const left = async (runId: string) =>
    (
      await pool.query(
        `select (select count(*) from scans where id = $1)::int as scans,
                (select count(*) from scan_photos where run_id = $1)::int as photos`,
        [runId],
      )
    ).rows[0];

  /** A scan whose photo no job will ever analyse, waiting long enough to count as stranded. */
  async function strandedScan(): Promise<string> {
    const runId = await uploadedScan();
    await pool.query('select graphile_worker.remove_job($1)', [runId]);
    await pool.query(`update scan_photos set uploaded_at = now() - interval '1 hour' where run_id = $1`, [
      runId,
    ]);
    return runId;
  }

  it('a stranded photo’s scan not being deleted still fails, analysis_unavailable, its photo gone', async () => {
    const runId = await strandedScan();
    assert.deepEqual(await failStrandedScans(pool), [runId]);
    const { rows } = await pool.query('select status, failure_reason from scans where id = $1', [runId]);
    assert.deepEqual(rows, [{ status: 'failed', failure_reason: 'analysis_unavailable' }]);
    assert.deepEqual(await left(runId), { scans: 1, photos: 0 });
  });

  it('a stranded photo’s scan: the deletion and the run both succeed', async () => {
    const runId = await strandedScan();
    assert.deepEqual(await deleteDuring(runId, () => failStrandedScans(pool)), {
      deleted: 'ok',
      background: 'ok',
    });
    assert.deepEqual(await left(runId), { scans: 0, photos: 0 });
  });

  it('a photo past its crashes, its core dead: the deletion and the hand-back both succeed', async () => {
    const runId = await uploadedScan();
    await pool.query('update scan_photos set analysis_crashes = $2 where run_id = $1', [
      runId,
      MAX_ANALYSIS_CRASHES - 1,
    ]);
    await pool.query(
      `update graphile_worker._private_jobs set locked_at = now(), locked_by = $2, attempts = attempts + 1
       where key = $1`,
      [runId, DEAD_POOL],
    );
    assert.deepEqual(await deleteDuring(runId, () => handBackDeadPoolJobs(pool, [DEAD_POOL])), {
      deleted: 'ok',
      background: 'ok',
    });
    assert.deepEqual(await left(runId), { scans: 0, photos: 0 });
  });
});
