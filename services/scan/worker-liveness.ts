/**
 * A core killed outright (SIGKILL, out of memory, its node lost) leaves the jobs it was running locked, and
 * graphile-worker frees such jobs only after four hours: the scans would sit in `analyzing` that long.
 * So each core's worker pool holds a session-level advisory lock named after its pool id, on a connection
 * of its own, for as long as it lives; PostgreSQL releases the lock the moment that connection ends. Every
 * core looks at an interval for analysis jobs locked by a pool whose lock nobody holds and unlocks them
 * (graphile-worker's `force_unlock_workers`), so another replica takes them at once. A lock is also gone
 * while a live core's connection to the database is cut (PostgreSQL restarted, the connection terminated):
 * the core takes it again at once, and a pool counts as dead only once its lock has been missing at
 * `deadAfterLooks` looks in a row — otherwise every analysis under way would be counted as a crash of its
 * photo (three such, and an innocent photo fails `photo_unprocessable`) and analysed twice. Should a live
 * pool still be taken for dead, nothing is lost: whichever replica finishes a scan first records it, and
 * the other finds its photo gone and writes nothing (scan-worker.ts). A photo that kills core each time it
 * is analysed is not handed back forever (dead-pool-jobs.ts). The same look fails the scans whose
 * analysis no job will run again (stranded-scans.ts).
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Logger } from '../shared/logger.ts';
import { handBackDeadPoolJobs, MAX_ANALYSIS_CRASHES } from './dead-pool-jobs.ts';
import { failStrandedScans } from './stranded-scans.ts';

/** The advisory-lock namespace of worker pools (the first of the two int4 keys). */
const LOCK_CLASS = 0x5c1a;
/** A job locked more recently than this is left alone: its pool may still be taking its own lock. */
const GRACE_SECONDS = 5;
/** How soon a core whose lock's connection was lost tries again to take its lock. */
const RETAKE_MS = 500;

/** The second int4 key of a pool's lock: its id, hashed. */
export function poolLockKey(poolId: string): number {
  return createHash('sha256').update(poolId).digest().readUInt32BE(0) & 0x7fffffff;
}

export interface LivenessOptions {
  readonly databaseUrl: string;
  readonly logger: Logger;
  /** How often this core looks for jobs of dead pools. */
  readonly intervalMs: number;
  /**
   * Looks in a row at which a pool's lock must be missing before its jobs are freed (2: a live core whose
   * connection was cut has a whole interval to take its lock again).
   */
  readonly deadAfterLooks?: number;
}

export class WorkerLiveness {
  readonly #options: LivenessOptions;
  readonly #queries: pg.Pool;
  #holder: pg.Client | undefined;
  #taking: Promise<void> | undefined;
  #poolId: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<unknown> | undefined;
  #stopped = false;
  /** Pools whose lock was missing at the last looks: how many looks in a row. */
  #missing = new Map<string, number>();

  constructor(options: LivenessOptions) {
    this.#options = options;
    this.#queries = new pg.Pool({ connectionString: options.databaseUrl, max: 1 });
    this.#queries.on('error', (err) =>
      options.logger.warn({ err: err.message }, 'liveness: connection lost'),
    );
  }

  /** Takes this pool's lock, held until stop() or until the process dies. */
  async hold(poolId: string): Promise<void> {
    this.#poolId = poolId;
    // One taking at a time: a second session asking for the lock would wait for the first forever.
    this.#taking ??= this.#take(poolId).finally(() => {
      this.#taking = undefined;
    });
    await this.#taking;
  }

  async #take(poolId: string): Promise<void> {
    const client = new pg.Client({ connectionString: this.#options.databaseUrl });
    client.on('error', (err) => {
      this.#options.logger.warn({ err: err.message }, 'liveness: the lock’s connection was lost');
      if (this.#holder !== client) return;
      this.#holder = undefined;
      void this.#retake();
    });
    try {
      await client.connect();
      await client.query('select pg_advisory_lock($1, $2)', [LOCK_CLASS, poolLockKey(poolId)]);
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    if (this.#stopped) await client.end().catch(() => undefined);
    else this.#holder = client;
  }

  /** Takes the lock again as soon as the database answers (else the next sweep does). */
  async #retake(): Promise<void> {
    while (!this.#stopped && !this.#holder && this.#poolId) {
      await new Promise((resolve) => setTimeout(resolve, RETAKE_MS).unref());
      if (this.#stopped || this.#holder || !this.#poolId) return;
      await this.hold(this.#poolId).catch(() => undefined);
    }
  }

  start(): void {
    this.#timer = setInterval(() => {
      this.#sweeping ??= this.sweep().finally(() => {
        this.#sweeping = undefined;
      });
    }, this.#options.intervalMs);
    this.#timer.unref();
  }

  /** Unlocks the jobs of pools whose lock nobody holds; answers their ids. */
  async sweep(): Promise<string[]> {
    const { logger } = this.#options;
    try {
      if (!this.#holder && this.#poolId) await this.hold(this.#poolId);
      const { rows } = await this.#queries.query<{ locked_by: string }>(
        `select distinct locked_by from graphile_worker.jobs
         where locked_by is not null and locked_at < now() - make_interval(secs => $1)`,
        [GRACE_SECONDS],
      );
      const dead: string[] = [];
      const missing = new Map<string, number>();
      for (const { locked_by } of rows) {
        const held = await this.#queries.query<{ held: boolean }>(
          `select exists (select 1 from pg_locks where locktype = 'advisory' and granted
             and classid = $1 and objid = $2 and objsubid = 2) as held`,
          [LOCK_CLASS, poolLockKey(locked_by)],
        );
        if (held.rows[0]!.held) continue;
        const looks = (this.#missing.get(locked_by) ?? 0) + 1;
        if (looks >= (this.#options.deadAfterLooks ?? 2)) dead.push(locked_by);
        else missing.set(locked_by, looks);
      }
      this.#missing = missing;
      if (dead.length > 0) {
        const { failed } = await handBackDeadPoolJobs(this.#queries, dead);
        logger.warn({ pools: dead }, 'jobs of worker pools that died were handed back to the queue');
        if (failed.length > 0) {
          logger.warn(
            { run_ids: failed, crashes: MAX_ANALYSIS_CRASHES },
            'photos core died analysing, again and again: scans failed, photo_unprocessable',
          );
        }
      }
      const stranded = await failStrandedScans(this.#queries);
      if (stranded.length > 0) {
        logger.warn(
          { run_ids: stranded },
          'scans no analysis job will run again: failed, analysis_unavailable',
        );
      }
      return dead;
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'liveness: looking for dead worker pools failed');
      return [];
    }
  }

  /** Stops looking and releases this pool's lock (after its jobs have finished or been handed back). */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#sweeping;
    await this.#taking?.catch(() => undefined);
    const holder = this.#holder;
    this.#holder = undefined;
    this.#poolId = undefined;
    await holder?.end().catch(() => undefined);
    await this.#queries.end();
  }
}
