/**
 * A process that cannot start says why in one JSON log line (`fatal`) and exits 1, instead of Node's
 * multi-line stack trace of an uncaught error: a sentence naming what failed — `cannot reach the database
 * at db:5432 (ECONNREFUSED)`, `the database at db:5432 refused the login of user "skinmatch" (28P01)`,
 * `port 8080 is in use` — that never holds the database URL nor its password. An error of no known kind is
 * logged with its message and stack, still on one line. Configuration errors are refused before this, by
 * loadOrExit (env-reader.ts).
 */
import type { Logger } from './logger.ts';

/** Exit status of a process that could not start. */
export const EXIT_STARTUP_FAILED = 1;

/** Codes of a connection that could not be made (refused, no such host, no route, no answer). */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** pg's own messages when its connectionTimeoutMillis passes (a host that drops the packets). */
const CONNECT_TIMEOUT = /connection timeout|timeout expired/i;

interface ErrorFields {
  readonly code?: unknown;
  readonly syscall?: unknown;
  readonly port?: unknown;
  readonly message?: unknown;
  readonly cause?: unknown;
}

/** The error and the errors it wraps (MikroORM's exceptions keep pg's as `cause`). */
function chain(err: unknown): ErrorFields[] {
  const errors: ErrorFields[] = [];
  for (let e = err; typeof e === 'object' && e !== null && errors.length < 5; e = (e as ErrorFields).cause)
    errors.push(e as ErrorFields);
  return errors;
}

/** What a sentence may name of a postgres:// URL: `host:port`, the user and the database, never the password. */
function databaseParts(databaseUrl: string): { at: string; user: string; name: string } {
  try {
    const url = new URL(databaseUrl);
    return {
      at: `${url.hostname}:${url.port || '5432'}`,
      user: decodeURIComponent(url.username),
      name: decodeURIComponent(url.pathname.slice(1)),
    };
  } catch {
    return { at: 'the configured address', user: '', name: '' };
  }
}

/** The sentence for an error of a known kind, undefined otherwise. */
export function startupFailure(err: unknown, databaseUrl?: string): string | undefined {
  for (const e of chain(err)) {
    const code = typeof e.code === 'string' ? e.code : '';
    if (code === 'EADDRINUSE' && e.syscall === 'listen') return `port ${String(e.port)} is in use`;
    if (!databaseUrl) continue;
    const { at, user, name } = databaseParts(databaseUrl);
    if (UNREACHABLE.has(code)) return `cannot reach the database at ${at} (${code})`;
    if (!code && CONNECT_TIMEOUT.test(String(e.message)))
      return `cannot reach the database at ${at} (no answer within the connection timeout)`;
    if (code.startsWith('28'))
      return `the database at ${at} refused the login of user "${user}" (${code}: wrong password or user not allowed)`;
    if (code === '3D000') return `the database "${name}" does not exist at ${at}`;
  }
  return undefined;
}

export interface StartupGuard {
  /** The process has started: an error from now on is no startup failure. */
  done(): void;
}

/**
 * From now until `done()`, an error nothing caught (a rejected top-level await, a listening server's
 * 'error') ends the process with one fatal line. `databaseUrl`: the database this process opens at start.
 */
export function guardStartup(logger: Logger, databaseUrl?: string): StartupGuard {
  const fail = (err: unknown) => {
    const sentence = startupFailure(err, databaseUrl);
    if (sentence) logger.fatal({ code: chain(err).find((e) => e.code)?.code }, `cannot start: ${sentence}`);
    else logger.fatal({ err }, `cannot start: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(EXIT_STARTUP_FAILED);
  };
  process.on('uncaughtException', fail);
  return { done: () => process.off('uncaughtException', fail) };
}
