/**
 * What libraries write to the console, and Node's process warnings, as the process's own JSON log lines.
 *
 * Libraries print for themselves: graphile-worker `console.trace`s every worker that exits with an error (a
 * multi-line stack on stderr, each line of it a separate non-JSON line to a log pipeline), and Node prints
 * deprecation and experimental warnings as plain text. Each is one line of the process's logger instead, at
 * the level its console method means (log/info: info, debug: debug, warn: warn, error/trace: error), with
 * the same redaction as every other line.
 */
import { format } from 'node:util';
import type { Logger } from './logger.ts';

type Level = 'debug' | 'info' | 'warn' | 'error';

const METHODS: Readonly<Record<'log' | 'info' | 'debug' | 'warn' | 'error' | 'trace', Level>> = {
  log: 'info',
  info: 'info',
  debug: 'debug',
  warn: 'warn',
  error: 'error',
  trace: 'error',
};

export function logConsoleAndWarnings(logger: Logger): void {
  const log = logger.child({ source: 'console' });
  for (const [method, level] of Object.entries(METHODS)) {
    (console as unknown as Record<string, (...args: unknown[]) => void>)[method] = (...args: unknown[]) => {
      const error = args.find((arg): arg is Error => arg instanceof Error);
      const message = format(...args.map((arg) => (arg instanceof Error ? String(arg) : arg)));
      if (error) log[level]({ err: error }, message);
      else log[level](message);
    };
  }
  // Node's own printer of warnings is a 'warning' listener: replaced, not doubled.
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    const code = (warning as Error & { code?: string }).code;
    logger.warn({ source: 'node', warning: warning.name, ...(code ? { code } : {}) }, warning.message);
  });
}
