/**
 * The keys a process is given. In development a missing key is generated once under the data directory,
 * with a loud warning. In production nothing of development's is accepted: a missing key, the key
 * development generated, or a placeholder (a value of a few repeated characters) stops the start.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EnvReader } from './env-reader.ts';

export interface SecretSpec {
  /** The environment variable. */
  readonly name: string;
  /** The development key's file under the data directory. */
  readonly fileName: string;
  /** What a good value is, for messages. */
  readonly expected: string;
  readonly generate: () => string;
}

export interface SecretContext {
  readonly reader: EnvReader;
  readonly production: boolean;
  readonly dataDir: string;
  readonly warnings: string[];
}

/** A key with fewer distinct characters than this is a placeholder ("changeme…", "aaaa…", "abab…"). */
const MIN_DISTINCT_CHARACTERS = 8;

/** The secret's value, or undefined when production has none it may use (the problem is recorded). */
export function readSecret(spec: SecretSpec, context: SecretContext): string | undefined {
  const { reader, production, dataDir, warnings } = context;
  const value = reader.value(spec.name)?.trim();
  const file = join(dataDir, spec.fileName);
  if (value !== undefined) {
    if (!production) return value;
    if (existsSync(file) && readFileSync(file, 'utf8').trim() === value) {
      reader.problem(
        spec.name,
        `the development key generated in ${file}`,
        `${spec.expected} of its own (NODE_ENV=production)`,
      );
      return undefined;
    }
    return value;
  }
  if (production) {
    reader.fault(`${spec.name}: not set, expected ${spec.expected} (required when NODE_ENV=production)`);
    return undefined;
  }
  if (!existsSync(file)) createOnce(dataDir, file, spec.generate());
  warnings.push(
    `${spec.name} is not set: using a development value from ${file}. Never do this in production.`,
  );
  return readFileSync(file, 'utf8').trim();
}

/**
 * Creates `file` holding `content` unless another process does first (several processes of one
 * development stack start at once and may all find it missing): written in full under a name of its own,
 * then linked into place, which fails if the file is already there — so no process reads it half-written,
 * and every one reads the same key.
 */
function createOnce(dir: string, file: string, content: string): void {
  mkdirSync(dir, { recursive: true });
  const draft = `${file}.${randomUUID()}`;
  writeFileSync(draft, content, { mode: 0o600 });
  try {
    linkSync(draft, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    rmSync(draft, { force: true });
  }
}

/** Whether a key looks like a placeholder rather than something random. */
export function isPlaceholder(key: string): boolean {
  return new Set(key).size < MIN_DISTINCT_CHARACTERS;
}

/** The shape of a secret for a message: its length, never its characters. */
export function described(key: string): string {
  return `${key.length} characters`;
}

/** The shape of a placeholder for a message: its length and how few characters it repeats. */
export function describedPlaceholder(key: string): string {
  return `${key.length} characters of only ${new Set(key).size} distinct ones`;
}
