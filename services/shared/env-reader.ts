/**
 * Reading the environment with every problem collected, so that a process refuses to start with all of
 * them at once, one line each: the variable, what was given, what is expected. A secret's value is never
 * repeated in a message; only its length or shape is.
 */
import { quote } from './text.ts';

/** The configuration could not be read: one line per problem. */
export class ConfigError extends Error {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(`configuration refused (${count(problems.length)}):\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** Exit status of a process that refused its configuration (EX_CONFIG of sysexits.h). */
export const EXIT_CONFIG = 78;

export class EnvReader {
  readonly env: NodeJS.ProcessEnv;
  readonly #problems: string[] = [];

  constructor(env: NodeJS.ProcessEnv) {
    this.env = env;
  }

  /** The variable's value; empty counts as unset. */
  value(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value === '' ? undefined : value;
  }

  /** Records a problem: `NAME: got <given>, expected <expected>`. */
  problem(name: string, given: string, expected: string): void {
    this.#problems.push(`${name}: got ${given}, expected ${expected}`);
  }

  /** Records a problem of a relation between variables, or of a variable that is missing. */
  fault(line: string): void {
    this.#problems.push(line);
  }

  port(name: string, fallback: number, value = this.value(name)): number {
    if (value === undefined) return fallback;
    const n = Number(value);
    if (Number.isInteger(n) && n >= 0 && n <= 65535) return n;
    this.problem(name, quote(value), 'a port number from 0 to 65535');
    return fallback;
  }

  positive(name: string, fallback: number): number {
    const value = this.value(name);
    if (value === undefined) return fallback;
    const n = Number(value);
    if (Number.isInteger(n) && n >= 1) return n;
    this.problem(name, quote(value), 'a positive integer');
    return fallback;
  }

  /** A whole number that may be 0 (a delay that can be switched off). */
  count(name: string, fallback: number): number {
    const value = this.value(name);
    if (value === undefined) return fallback;
    const n = Number(value);
    if (Number.isInteger(n) && n >= 0) return n;
    this.problem(name, quote(value), 'a whole number, 0 or more');
    return fallback;
  }

  /** An interface to listen on: a host name or an IP address, no scheme or port. */
  host(name: string, fallback: string): string {
    const value = this.value(name);
    if (value === undefined) return fallback;
    if (/^([A-Za-z0-9.-]+|\[?[0-9A-Fa-f:.]+\]?)$/.test(value)) return value;
    this.problem(
      name,
      quote(value),
      'a host name or an IP address to listen on (e.g. 0.0.0.0), no scheme or port',
    );
    return fallback;
  }

  oneOf<T extends string>(name: string, choices: readonly T[], fallback: T): T {
    const value = this.value(name);
    if (value === undefined) return fallback;
    if ((choices as readonly string[]).includes(value)) return value as T;
    this.problem(name, quote(value), `one of ${choices.join(', ')}`);
    return fallback;
  }

  /** An http(s) URL; `secret` keeps the value (which may hold a password) out of the message. */
  url(name: string, fallback: string, protocols = ['http:', 'https:'], secret = false): string {
    const value = this.value(name);
    if (value === undefined) return fallback;
    const parsed = URL.canParse(value) ? new URL(value) : undefined;
    if (parsed && protocols.includes(parsed.protocol)) return value;
    const given = secret ? `a value that is not such a URL (${value.length} characters)` : quote(value);
    this.problem(name, given, `a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}`);
    return fallback;
  }

  /** Throws every problem recorded, if there is any. */
  done(): void {
    if (this.#problems.length > 0) throw new ConfigError(this.#problems);
  }
}

function count(n: number): string {
  return n === 1 ? '1 problem' : `${n} problems`;
}

/**
 * Loads a process's configuration, or stops the process: every problem on stderr, one a line, and exit
 * status 78. Anything else that goes wrong while loading is not a configuration problem and is rethrown.
 */
export function loadOrExit<T>(role: string, load: () => T): T {
  try {
    return load();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${role}: ${err.message}\n`);
    process.exit(EXIT_CONFIG);
  }
}
