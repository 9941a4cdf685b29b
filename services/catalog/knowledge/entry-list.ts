/**
 * One list of the knowledge base, read from its data file, checked, and searchable by ingredient name.
 *
 * Data files are written by hand, so a mistake (a missing reason, a duplicate, a malformed pattern) must
 * stop the service at load time instead of silently changing what products derive.
 */
import { compilePattern, matchesName, type NamePattern } from './pattern.ts';

export interface RawEntry {
  readonly name: string;
  readonly match: readonly string[];
  readonly except: readonly string[];
  readonly reason: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

export interface EntryBase {
  readonly name: string;
  readonly patterns: readonly NamePattern[];
  readonly reason: string;
}

function fail(file: string, message: string): never {
  throw new Error(`knowledge/${file}: ${message}`);
}

function stringArray(file: string, entry: string, value: unknown, field: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    fail(file, `entry "${entry}": ${field} must be an array of strings`);
  }
  return value as string[];
}

/** Reads the entries array of one data file, checking the fields every entry shares. */
export function readEntries(file: string, data: unknown, key: string): RawEntry[] {
  const list = (data as Record<string, unknown> | null)?.[key];
  if (!Array.isArray(list)) fail(file, `"${key}" must be an array`);
  const names = new Set<string>();
  return list.map((item: unknown, index) => {
    if (typeof item !== 'object' || item === null) fail(file, `entry ${index} is not an object`);
    const { name, match, except, reason, ...fields } = item as Record<string, unknown>;
    if (typeof name !== 'string' || name.trim() === '') fail(file, `entry ${index} has no name`);
    if (names.has(name)) fail(file, `duplicate entry "${name}"`);
    names.add(name);
    if (typeof reason !== 'string' || reason.trim() === '' || /[\r\n]/.test(reason)) {
      fail(file, `entry "${name}" needs its reason on one line`);
    }
    const patterns = stringArray(file, name, match, 'match');
    return {
      name,
      match: patterns.length > 0 ? patterns : [name],
      except: stringArray(file, name, except, 'except'),
      reason,
      fields,
    };
  });
}

/**
 * Entries searchable by canonical ingredient name. The first entry in file order whose pattern matches
 * wins, unless one of its `except` patterns also matches. Exact patterns sit in a map so the common case
 * is a single lookup.
 */
export class EntryList<T extends EntryBase> {
  readonly entries: readonly T[];
  readonly #exceptions: ReadonlyMap<T, readonly ((name: string) => boolean)[]>;
  readonly #exact = new Map<string, number>();
  readonly #wildcards: { readonly index: number; readonly pattern: NamePattern }[] = [];

  constructor(entries: readonly T[], exceptions: ReadonlyMap<T, readonly ((name: string) => boolean)[]>) {
    this.entries = entries;
    this.#exceptions = exceptions;
    entries.forEach((entry, index) => {
      for (const pattern of entry.patterns) {
        if (pattern.exact === null) this.#wildcards.push({ index, pattern });
        else if (!this.#exact.has(pattern.exact)) this.#exact.set(pattern.exact, index);
      }
    });
  }

  /** The entry this ingredient belongs to, or null. */
  find(name: string): T | null {
    let exactIndex = this.#exact.get(name) ?? Number.POSITIVE_INFINITY;
    if (this.#excepted(exactIndex, name)) exactIndex = Number.POSITIVE_INFINITY;
    for (const { index, pattern } of this.#wildcards) {
      if (index >= exactIndex) break;
      if (matchesName(pattern, name) && !this.#excepted(index, name)) return this.entries[index] ?? null;
    }
    return this.entries[exactIndex] ?? null;
  }

  #excepted(index: number, name: string): boolean {
    const entry = this.entries[index];
    const tests = entry === undefined ? undefined : this.#exceptions.get(entry);
    return tests?.some((test) => test(name)) ?? false;
  }
}

/** Compiles the `match` patterns of an entry, naming the file when one is malformed. */
export function compileAll(file: string, sources: readonly string[]): NamePattern[] {
  return sources.map((source) => {
    try {
      return compilePattern(source);
    } catch (error) {
      return fail(file, (error as Error).message);
    }
  });
}

export { fail as knowledgeError };
