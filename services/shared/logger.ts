/**
 * Structured logs (pino JSON, one object per line; `level` by name: `info`, `warn`…). Each line carries
 * `request_id` and `trace_id` of the request it was written for (telemetry.ts), when there is one.
 *
 * Secrets never reach a line, in two layers. Fields that hold one are redacted by name: tokens of every
 * kind, `Authorization`, cookies and `Set-Cookie`, OAuth authorization codes, refresh tokens, client
 * secrets, the consenting browser's secret, challenge solutions, keys. And, in case a secret is ever
 * written into a message or an error text, every line is scrubbed of the shapes secrets have before it is
 * written: the exact values of the secrets this process was configured with (`redactInLogs`, called by
 * the configuration loaders: the token pepper, the ALTCHA key, the OAuth keys, the identity providers' client
 * secrets, the database password; whatever their shape or length), a bearer credential, a JSON Web Token,
 * 64 hex characters in either case (scan tokens, browser secrets and the hashes of both) and long base64url runs that mix upper case, lower case and digits (authorization codes,
 * refresh tokens, session and interaction cookies, signed cookie values, challenge solutions). Request
 * bodies are never logged.
 */
import { pino } from 'pino';
import { currentRequestId, currentTraceId } from './telemetry.ts';

const SECRET_FIELDS = [
  'access_token',
  'accessToken',
  'refresh_token',
  'refreshToken',
  'id_token',
  'token',
  'authorization',
  'Authorization',
  'cookie',
  'cookies',
  'Cookie',
  'set-cookie',
  'Set-Cookie',
  'set_cookie',
  'authorization_code',
  'code_verifier',
  'client_secret',
  'clientSecret',
  'browser_secret',
  'browserSecret',
  'secret',
  'solution',
  'altcha',
  'pepper',
  'password',
  'signing_key',
];

const SECRET_KEYS = new Set(SECRET_FIELDS.map((field) => field.toLowerCase()));

export const REDACTED = '[redacted]';

/**
 * The object with every field named like a secret replaced, at the top level and three levels down
 * (`req.headers.cookie`…); objects are copied where they change, never mutated. One pass over the keys: pino's
 * path redaction cost 40–300 µs a line with wildcard paths (measured), this a fraction of a microsecond.
 */
export function redactSecrets<T>(value: T, depth = 0): T {
  if (typeof value !== 'object' || value === null || depth > 3 || value instanceof Error) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, i) => {
      const redacted = redactSecrets(item, depth + 1);
      if (redacted === item) return;
      copy ??= [...value];
      copy[i] = redacted;
    });
    return (copy ?? value) as T;
  }
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key];
    const redacted = SECRET_KEYS.has(key.toLowerCase()) ? REDACTED : redactSecrets(item, depth + 1);
    if (redacted === item) continue;
    copy ??= { ...(value as Record<string, unknown>) };
    copy[key] = redacted;
  }
  return (copy ?? value) as T;
}

/** Runs of base64url characters long enough to be a secret; each is judged by what it holds. */
const LONG_RUN = /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{32,}(?![A-Za-z0-9_-])/g;
/** The shapes of secrets that are not one long run: a bearer or basic credential, a JSON Web Token. */
const CREDENTIAL = /\b(Bearer|Basic)\s+(?!\[redacted\])[A-Za-z0-9._~+/=-]+/gi;
const JWT = /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.?[A-Za-z0-9_-]*/g;

/** Whether a long run is secret-shaped: 64+ hex characters, or upper case, lower case and digits mixed. */
function secretRun(run: string): boolean {
  if (/^[a-f0-9]{64,}$/i.test(run)) return true;
  return /[A-Z]/.test(run) && /[a-z]/.test(run) && /[0-9]/.test(run);
}

/** Shorter configured values are left alone: redacting them would garble words, not hide a secret. */
export const MIN_REDACTED_LENGTH = 8;

const configured = new Set<string>();
let configuredPattern: RegExp | undefined;

/**
 * Every line this process writes from now on has each of these values replaced wherever it appears (as
 * written, and as JSON writes it: a PEM key's line breaks escaped), case aside. Values of more than one
 * line (a PEM key) count line by line too.
 */
export function redactInLogs(values: readonly (string | undefined)[]): void {
  for (const value of values) {
    if (value === undefined) continue;
    for (const part of [value, ...value.split(/[\r\n]+/)]) {
      const trimmed = part.trim();
      if (trimmed.length < MIN_REDACTED_LENGTH) continue;
      configured.add(trimmed);
      configured.add(JSON.stringify(trimmed).slice(1, -1));
    }
  }
  // Longest first, so that a value containing another is replaced whole.
  const sorted = [...configured].sort((a, b) => b.length - a.length);
  configuredPattern = sorted.length
    ? new RegExp(sorted.map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'gi')
    : undefined;
}

/** A written line with every configured secret and every secret-shaped value replaced. */
export function scrub(line: string): string {
  let out = configuredPattern ? line.replace(configuredPattern, REDACTED) : line;
  if (out.includes('earer') || out.includes('asic') || out.includes('EARER') || out.includes('ASIC'))
    out = out.replace(CREDENTIAL, (_match, scheme: string) => `${scheme} ${REDACTED}`);
  if (out.includes('eyJ')) out = out.replace(JWT, REDACTED);
  return out.replace(LONG_RUN, (run) => (secretRun(run) ? REDACTED : run));
}

export type Logger = pino.Logger;

export function createLogger(
  name: string,
  level = process.env.LOG_LEVEL ?? 'info',
  destination?: pino.DestinationStream,
): Logger {
  const options: pino.LoggerOptions = {
    name,
    level,
    // The level by name ("info"), which log pipelines read without a mapping of pino's numbers.
    formatters: { level: (label) => ({ level: label }), log: (object) => redactSecrets(object) },
    mixin: () => {
      const requestId = currentRequestId();
      const traceId = currentTraceId();
      if (!requestId && !traceId) return {};
      return traceId ? { request_id: requestId, trace_id: traceId } : { request_id: requestId };
    },
    hooks: { streamWrite: scrub },
  };
  // Synchronous, as Node's own stdout is on a pipe: pino's default writes asynchronously, and what is still
  // being written when the process exits is lost — the last lines before a shutdown's exit, when the
  // reader of its stdout lags (measured: 53 of 2001 lines lost behind a full pipe).
  return pino(options, destination ?? pino.destination({ dest: 1, sync: true }));
}
