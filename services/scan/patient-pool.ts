/**
 * The scan worker's connections to PostgreSQL. graphile-worker records a job's outcome (done, or failed and
 * due again after a backoff) on a connection it takes from this pool without awaiting the promise, and its
 * own retries skip a refused connection: a PostgreSQL restart that caught an analysis rejected that promise
 * with nobody listening, and the unhandled rejection ended core. So while the server cannot be reached
 * (refused, reset, starting up or shutting down), taking a connection waits and tries again — once a
 * second at most — until the server answers or the worker stops.
 *
 * A connection taken just before the server went down fails its statement instead: `57P01`/`57P02` (the
 * server shutting down, or the backend terminated). graphile-worker's own retries (`withRetries`, which
 * take a fresh connection each time) leave those codes out, so recording a job's outcome on such a
 * connection was again an unhandled rejection that ended core. Its statements that record outcomes (delete
 * the job, mark it failed, take jobs) did not take effect when their backend was terminated and may be
 * run again, so these codes are added to the ones it retries.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { SERVER_UNREACHABLE_CODES } from '../core/db/outage.ts';

/** graphile-worker's table of the error codes `withRetries` tries again (its lib.js; not in its exports). */
const { RETRYABLE_ERROR_CODES: retryable } = (await import(
  new URL('./lib.js', import.meta.resolve('graphile-worker')).href
)) as { RETRYABLE_ERROR_CODES: Record<string, { minDelay: number; maxDelay: number }> };
retryable['57P01'] ??= { minDelay: 200, maxDelay: 30_000 }; // admin_shutdown: stopping, or terminated
retryable['57P02'] ??= { minDelay: 200, maxDelay: 30_000 }; // crash_shutdown

function unreachable(err: unknown): boolean {
  const { code, message } = err as { code?: string; message?: string };
  if (code !== undefined) return SERVER_UNREACHABLE_CODES.has(code);
  return /^Connection terminated/.test(message ?? '');
}

export interface PatientPool {
  readonly pool: pg.Pool;
  /** Stops waiting: a connection taken from now on fails at once when the server cannot be reached. */
  giveUp(): void;
}

export function createPatientPool(config: pg.PoolConfig, maxDelayMs = 1000): PatientPool {
  const pool = new pg.Pool(config);
  let patient = true;
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => Promise<pg.PoolClient> | undefined;
  // The callback form (pg's own pool.query, graphile-worker's LISTEN, which retries by itself) is unchanged.
  const waitingConnect = async (...args: unknown[]) => {
    if (args.length > 0) return connect(...args);
    for (let delay = 100; ; delay = Math.min(delay * 2, maxDelayMs)) {
      try {
        return await (connect() as Promise<pg.PoolClient>);
      } catch (err) {
        if (!patient || !unreachable(err)) throw err;
        await sleep(delay);
      }
    }
  };
  pool.connect = waitingConnect as typeof pool.connect;
  return {
    pool,
    giveUp: () => {
      patient = false;
    },
  };
}
