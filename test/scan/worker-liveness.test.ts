/**
 * The jobs of a core that died: freed by any other core, as soon as the dead worker pool's advisory lock
 * is gone, with the attempt the crash took given back; the jobs of a pool that is alive are left alone. A
 * photo core died analysing MAX_ANALYSIS_CRASHES times fails its scan instead of being retried forever. A
 * lock missing at one look only is a live core's connection cut: its jobs are left alone. Real PostgreSQL,
 * with pools' locks as the cores hold them (the whole path through processes and SIGKILL is in
 * test/core/replicas.test.ts; connections cut, in test/core/worker-lock-cut.test.ts).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { migrate, type Orm, openDatabase } from '../../services/core/db/orm.ts';
import { MAX_ANALYSIS_CRASHES } from '../../services/scan/dead-pool-jobs.ts';
import { prepareQueue } from '../../services/scan/scan-worker.ts';
import { WorkerLiveness } from '../../services/scan/worker-liveness.ts';
import { createTestDatabase } from '../support/database.ts';
import { uploadPhoto } from '../support/fixtures.ts';

describe('jobs of dead worker pools', () => {
  let database: { url: string; drop: () => Promise<void> };
  let orm: Orm;
  const logger = pino({ level: 'silent' });
  const livenesses: WorkerLiveness[] = [];
  /** One look unless told: most tests here are about what becomes of the jobs of a pool taken for dead. */
  const liveness = (deadAfterLooks = 1) => {
    const made = new WorkerLiveness({
      databaseUrl: database.url,
      logger,
      intervalMs: 60_000,
      deadAfterLooks,
    });
    livenesses.push(made);
    return made;
  };
  const sql = <T>(query: string, params: unknown[] = []) =>
    orm.em.getConnection().execute(query, params) as Promise<T[]>;

  before(async () => {
    database = await createTestDatabase();
    orm = await openDatabase(database.url);
    await migrate(orm);
    await prepareQueue(database.url, logger);
  });
  after(async () => {
    for (const made of livenesses) await made.stop();
    await orm?.close();
    await database?.drop();
  });

  /** A scan with its analysis job, locked by `pool` a minute ago after `attempts` of `maxAttempts`. */
  async function lockedJob(pool: string, attempts: number, maxAttempts: number): Promise<string> {
    const runId = randomUUID();
    await sql(
      `insert into scans (id, token_hash, source, status, expires_at, created_at, updated_at)
       values (?, ?, 'liveness', 'awaiting_upload', now() + interval '1 day', now(), now())`,
      [runId, randomUUID()],
    );
    await uploadPhoto(orm, runId, Buffer.from('photo'), maxAttempts);
    await sql(
      `update graphile_worker._private_jobs set locked_by = ?, locked_at = now() - interval '1 minute',
         attempts = ? where key = ?`,
      [pool, attempts, runId],
    );
    return runId;
  }
  const job = async (runId: string) =>
    (
      await sql<{ locked_by: string | null; attempts: number }>(
        'select locked_by, attempts from graphile_worker.jobs where key = ?',
        [runId],
      )
    )[0];
  const scanState = async (runId: string) =>
    (
      await sql<{ status: string; failure_reason: string | null; crashes: number | null }>(
        `select s.status, s.failure_reason, p.analysis_crashes as crashes
         from scans s left join scan_photos p on p.run_id = s.id where s.id = ?`,
        [runId],
      )
    )[0];

  it('frees the jobs of a pool whose lock nobody holds, each with the attempt the crash took back', async () => {
    const alive = liveness();
    await alive.hold('pool-alive');
    const running = await lockedJob('pool-alive', 1, 5);
    const orphan = await lockedJob('pool-dead', 2, 5);
    const lastTry = await lockedJob('pool-dead', 3, 3);
    const other = liveness();
    assert.deepEqual(await other.sweep(), ['pool-dead']);
    assert.deepEqual(await job(running), { locked_by: 'pool-alive', attempts: 1 });
    assert.deepEqual(await job(orphan), { locked_by: null, attempts: 1 });
    assert.deepEqual(await job(lastTry), { locked_by: null, attempts: 2 });
    assert.deepEqual(await scanState(lastTry), { status: 'queued', failure_reason: null, crashes: 1 });
    assert.deepEqual(await other.sweep(), [], 'nothing left to free');

    await alive.stop(); // the pool is gone: its lock with it
    assert.deepEqual(await other.sweep(), ['pool-alive']);
    assert.deepEqual(await job(running), { locked_by: null, attempts: 0 });
  });

  it(`a photo core died analysing ${MAX_ANALYSIS_CRASHES} times fails its scan with photo_unprocessable`, async () => {
    const sweeper = liveness();
    const poison = await lockedJob('pool-crash-1', 1, 5);
    const bystander = await lockedJob('pool-crash-1', 1, 5);
    for (let crash = 1; crash < MAX_ANALYSIS_CRASHES; crash++) {
      assert.deepEqual(await sweeper.sweep(), [`pool-crash-${crash}`]);
      assert.deepEqual(await scanState(poison), { status: 'queued', failure_reason: null, crashes: crash });
      // Taken again by the next pool, which dies too (with the poison photo alone).
      await sql(
        `update graphile_worker._private_jobs set locked_by = ?, locked_at = now() - interval '1 minute',
           attempts = attempts + 1 where key = ?`,
        [`pool-crash-${crash + 1}`, poison],
      );
    }
    assert.deepEqual(await sweeper.sweep(), [`pool-crash-${MAX_ANALYSIS_CRASHES}`]);
    assert.deepEqual(await scanState(poison), {
      status: 'failed',
      failure_reason: 'photo_unprocessable',
      crashes: null, // the photo is deleted with its scan's failure
    });
    assert.equal(await job(poison), undefined, 'its job is removed from the queue');
    assert.deepEqual(await scanState(bystander), { status: 'queued', failure_reason: null, crashes: 1 });
    assert.deepEqual(await job(bystander), { locked_by: null, attempts: 0 });
  });

  it('a new photo starts again with no crash counted', async () => {
    const runId = await lockedJob('pool-crash-new', 1, 5);
    await liveness().sweep();
    assert.equal((await scanState(runId))!.crashes, 1);
    await uploadPhoto(orm, runId, Buffer.from('another photo'));
    assert.equal((await scanState(runId))!.crashes, 0);
  });

  it('two cores looking at once count a crash once', async () => {
    const runId = await lockedJob('pool-crash-twice', 1, 5);
    await Promise.all([liveness().sweep(), liveness().sweep(), liveness().sweep()]);
    assert.equal((await scanState(runId))!.crashes, 1);
    assert.deepEqual(await job(runId), { locked_by: null, attempts: 0 });
  });

  it('a lock missing at one look and taken again is a live pool: its job is left alone', async () => {
    const owner = liveness();
    await owner.hold('pool-cut');
    const runId = await lockedJob('pool-cut', 1, 5);
    const sweeper = liveness(2);
    await owner.stop(); // its connection cut: the lock is missing
    assert.deepEqual(await sweeper.sweep(), [], 'first look: not yet taken for dead');
    const back = liveness();
    await back.hold('pool-cut'); // the same pool takes its lock again
    assert.deepEqual(await sweeper.sweep(), []);
    assert.deepEqual(await job(runId), { locked_by: 'pool-cut', attempts: 1 });
    assert.equal((await scanState(runId))!.crashes, 0);
    await back.stop(); // now gone for good: missing at two looks in a row
    assert.deepEqual(await sweeper.sweep(), []);
    assert.deepEqual(await sweeper.sweep(), ['pool-cut']);
    assert.deepEqual(await job(runId), { locked_by: null, attempts: 0 });
  });
});
