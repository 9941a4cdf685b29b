/**
 * The jobs of a core that died: freed by any other core, as soon as the dead worker pool's advisory lock
 * is gone; the jobs of a pool that is alive are left alone. Real PostgreSQL, with pools' locks as the cores
 * hold them (the whole path through processes and SIGKILL is in test/core/replicas.test.ts).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { migrate, type Orm, openDatabase } from '../../services/core/db/orm.ts';
import { prepareQueue } from '../../services/scan/scan-worker.ts';
import { WorkerLiveness } from '../../services/scan/worker-liveness.ts';
import { createTestDatabase } from '../support/database.ts';
import { uploadPhoto } from '../support/fixtures.ts';

describe('jobs of dead worker pools', () => {
  let database: { url: string; drop: () => Promise<void> };
  let orm: Orm;
  const logger = pino({ level: 'silent' });
  const livenesses: WorkerLiveness[] = [];
  const liveness = () => {
    const made = new WorkerLiveness({ databaseUrl: database.url, logger, intervalMs: 60_000 });
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

  it('frees the jobs of a pool whose lock nobody holds, a last attempt with its attempts back', async () => {
    const alive = liveness();
    await alive.hold('pool-alive');
    const running = await lockedJob('pool-alive', 1, 5);
    const orphan = await lockedJob('pool-dead', 2, 5);
    const lastTry = await lockedJob('pool-dead', 3, 3);
    const other = liveness();
    assert.deepEqual(await other.sweep(), ['pool-dead']);
    assert.deepEqual(await job(running), { locked_by: 'pool-alive', attempts: 1 });
    assert.deepEqual(await job(orphan), { locked_by: null, attempts: 2 });
    assert.deepEqual(await job(lastTry), { locked_by: null, attempts: 0 });
    assert.deepEqual(await other.sweep(), [], 'nothing left to free');

    await alive.stop(); // the pool is gone: its lock with it
    assert.deepEqual(await other.sweep(), ['pool-alive']);
    assert.deepEqual(await job(running), { locked_by: null, attempts: 1 });
  });
});
