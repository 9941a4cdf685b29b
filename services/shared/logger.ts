/**
 * Structured logs (pino). Anything that could hold a scan token or a credential is redacted by path, and
 * the services never log request bodies, so no log line can carry a token.
 */
import { pino } from 'pino';

const REDACT = [
  'access_token',
  '*.access_token',
  '*.*.access_token',
  'accessToken',
  '*.accessToken',
  'authorization',
  '*.authorization',
  'headers.authorization',
  'headers.cookie',
  'token',
  '*.token',
  'pepper',
  '*.pepper',
];

export type Logger = pino.Logger;

export function createLogger(name: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({ name, level, redact: { paths: REDACT, censor: '[redacted]' } });
}
