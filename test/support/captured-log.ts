/** A pino logger that keeps each line it writes, parsed, for tests of what is logged. */
import { type Logger, pino } from 'pino';

/** A logger at `level` and each line it has written, parsed. */
export function capturingLogger<Line = Record<string, unknown>>(
  level = 'debug',
): {
  readonly logger: Logger;
  readonly lines: Line[];
} {
  const lines: Line[] = [];
  return { logger: pino({ level }, { write: (line: string) => lines.push(JSON.parse(line)) }), lines };
}
