/**
 * Structured logs (pino JSON, one object per line). Each line carries `request_id` and `trace_id` of the
 * request it was written for (telemetry.ts), when there is one.
 *
 * Secrets never reach a line, in two layers. Fields that hold one are redacted by path: tokens of every
 * kind, `Authorization`, cookies and `Set-Cookie`, OAuth authorization codes, refresh tokens, client
 * secrets, the consenting browser's secret, challenge solutions, keys. And, in case a secret is ever
 * written into a message or an error text, every line is scrubbed of the shapes secrets have before it is
 * written: a bearer credential, a JSON Web Token, 64 hex characters (scan tokens, browser secrets and the
 * hashes of both) and long base64url runs that mix upper case, lower case and digits (authorization codes,
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

/** Each field at the top level and up to two levels down (`req.headers.cookie`, `err.config.token`…). */
export const REDACT_PATHS = SECRET_FIELDS.flatMap((field) => {
  const key = /^[A-Za-z_$][\w$]*$/.test(field) ? field : `["${field}"]`;
  const sep = key.startsWith('[') ? '' : '.';
  return [key, `*${sep}${key}`, `*.*${sep}${key}`];
});

export const REDACTED = '[redacted]';

/** The shapes of secrets, matched anywhere in a written line. */
export const SECRET_SHAPES: readonly RegExp[] = [
  /\b(Bearer|Basic)\s+(?!\[redacted\])[A-Za-z0-9._~+/=-]+/gi,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.?[A-Za-z0-9_-]*/g,
  /(?<![A-Fa-f0-9])[a-f0-9]{64,}(?![A-Fa-f0-9])/g,
  /(?<![A-Za-z0-9_-])(?=[A-Za-z0-9_-]*[A-Z])(?=[A-Za-z0-9_-]*[a-z])(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{32,}(?![A-Za-z0-9_-])/g,
];

/** A written line with every secret-shaped value replaced. */
export function scrub(line: string): string {
  let out = line;
  for (const shape of SECRET_SHAPES) {
    shape.lastIndex = 0;
    out = out.replace(shape, (_match, scheme?: string) =>
      typeof scheme === 'string' && /^(bearer|basic)$/i.test(scheme) ? `${scheme} ${REDACTED}` : REDACTED,
    );
  }
  return out;
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
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    mixin: () => {
      const requestId = currentRequestId();
      const traceId = currentTraceId();
      if (!requestId && !traceId) return {};
      return traceId ? { request_id: requestId, trace_id: traceId } : { request_id: requestId };
    },
    hooks: { streamWrite: scrub },
  };
  return destination ? pino(options, destination) : pino(options);
}
