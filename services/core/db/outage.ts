/**
 * A database that does not answer is an outage the caller should wait out, not a fault of core's: every
 * call failing because PostgreSQL cannot be reached, has no connection to spare, or dropped one — the pool
 * full for 5 s (a stalled or locked database holding every connection), refused, reset, shutting down,
 * too many clients — answers UNAVAILABLE with the `unavailable` reason and `retry_after_seconds`, which gRPC
 * clients retry and the façade passes on to agents. It was INTERNAL "internal error" (not retryable in
 * gRPC's terms), and each such call logged an error with its stack: measured, a 25 s lock on the scans
 * table under 30 concurrent start_skin_scan calls gave 200 stack traces.
 */
import type { Interceptor } from '@connectrpc/connect';
import { serviceError } from '../../shared/errors.ts';
import type { Logger } from '../../shared/logger.ts';

/** Seconds a caller waits before trying again: about the pool's wait for a connection. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** What a server that is restarting, failing over or not yet up answers a new connection (errno or SQLSTATE). */
export const SERVER_UNREACHABLE_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01', // admin_shutdown: stopping, or the backend terminated
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up or shutting down
]);

/** What PostgreSQL or the network answers when the server cannot take the call (SQLSTATE or errno). */
const OUTAGE_CODES = new Set([
  ...SERVER_UNREACHABLE_CODES,
  'EPIPE',
  '53300', // too_many_connections
  '08000', // connection_exception
  '08001', // sqlclient_unable_to_establish_sqlconnection
  '08003', // connection_does_not_exist
  '08006', // connection_failure
]);

/** node-postgres' own words: no connection from a full pool in time, a dropped connection, a silent server. */
const OUTAGE_MESSAGES = /^(timeout exceeded when trying to connect|Connection terminated|Query read timeout)/;

/** Whether `err` (or an error it wraps) says the database cannot be reached or has no connection to give. */
export function isDatabaseOutage(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const { code, message, cause } = e as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof code === 'string' && OUTAGE_CODES.has(code)) return true;
    if (typeof message === 'string' && OUTAGE_MESSAGES.test(message)) return true;
    e = cause;
  }
  return false;
}

/** Turns a database outage met by a call into `unavailable`, with one warning line (no stack) per call. */
export function databaseOutages(logger: Logger): Interceptor {
  const refuse = (method: string, err: unknown) => {
    logger.warn(
      { procedure: method, err: (err as Error).message },
      'rpc refused: the database does not answer',
    );
    return serviceError(
      'unavailable',
      `The database is not answering; try again in ${DATABASE_RETRY_AFTER_SECONDS} s.`,
      { retry_after_seconds: String(DATABASE_RETRY_AFTER_SECONDS) },
    );
  };
  return (next) => async (req) => {
    const method = `${req.method.parent.typeName}/${req.method.name}`;
    let res: Awaited<ReturnType<typeof next>>;
    try {
      res = await next(req);
    } catch (err) {
      throw isDatabaseOutage(err) ? refuse(method, err) : err;
    }
    if (!res.stream) return res;
    const messages = res.message;
    return {
      ...res,
      message: (async function* () {
        try {
          yield* messages;
        } catch (err) {
          throw isDatabaseOutage(err) ? refuse(method, err) : err;
        }
      })(),
    };
  };
}
