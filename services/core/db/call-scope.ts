/**
 * Database work for calls nobody waits for any more is skipped. Each call core serves runs in a scope
 * holding its signal (an interceptor, `callScope`); the database pool (`skipAbandonedCalls`) refuses a
 * connection to a call whose signal has aborted (its deadline passed, its client cancelled or went), and
 * stops waiting for one once it aborts. While PostgreSQL hung (SIGSTOP, 25 s), 200 GetScan calls with 1 s
 * deadlines queued for a connection and all ran once it resumed, answered at up to 24 s to clients long
 * gone; now each gives up at its deadline, and only the calls whose statements were already sent wait.
 *
 * Work a call starts and that outlives it (the call answered) is not the call's: the scope ends with the
 * call. Work shared by calls (the health probe, one for every caller) runs outside every scope
 * (`outsideCalls`), so that one caller's deadline does not fail it for the others.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { ConnectError, type Interceptor } from '@connectrpc/connect';
import type pg from 'pg';
import { whenAnswered } from '../../shared/call-end.ts';

interface Scope {
  readonly signal: AbortSignal;
  ended: boolean;
}

const scopes = new AsyncLocalStorage<Scope>();

/** Runs each call in a scope with its signal, until the call has answered (a stream: its last message). */
export function callScope(): Interceptor {
  return (next) => (req) => {
    const scope: Scope = { signal: req.signal, ended: false };
    return scopes.run(scope, () =>
      whenAnswered(
        () => next(req),
        () => {
          scope.ended = true;
        },
      ),
    );
  };
}

/** Runs `work` as no call's: the pool never refuses it because a call was abandoned. */
export function outsideCalls<T>(work: () => T): T {
  return scopes.exit(work);
}

/** The error a call abandoned before it got a connection ends with (its client no longer listens). */
function abandoned(signal: AbortSignal): ConnectError {
  return ConnectError.from(signal.reason);
}

/**
 * Makes `pool` refuse connections to calls already abandoned, and stop waiting for one (a pool whose
 * connections all hang, or a server that accepts but never answers) once the call is abandoned.
 */
export function skipAbandonedCalls(pool: pg.Pool): void {
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  const acquire = (signal: AbortSignal): Promise<pg.PoolClient> => {
    if (signal.aborted) return Promise.reject(abandoned(signal));
    return new Promise((resolve, reject) => {
      const giveUp = () => reject(abandoned(signal));
      signal.addEventListener('abort', giveUp, { once: true });
      connect().then(
        (client) => {
          signal.removeEventListener('abort', giveUp);
          // Taken after the call gave up waiting: straight back to the pool.
          if (signal.aborted) {
            client.release();
            reject(abandoned(signal));
          } else resolve(client);
        },
        (err: unknown) => {
          signal.removeEventListener('abort', giveUp);
          reject(err);
        },
      );
    });
  };
  const guarded = (
    callback?: (err: Error | undefined, client?: pg.PoolClient, done?: () => void) => void,
  ) => {
    const scope = scopes.getStore();
    const acquired = scope && !scope.ended ? acquire(scope.signal) : connect();
    if (!callback) return acquired;
    acquired.then(
      (client) => callback(undefined, client, () => client.release()),
      (err: Error) => callback(err),
    );
    return undefined;
  };
  pool.connect = guarded as typeof pool.connect;
}
