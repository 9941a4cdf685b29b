/**
 * Name patterns of the knowledge base.
 *
 * A pattern matches a whole canonical ingredient name, word by word, so matching is on word boundaries by
 * construction: `ethanol` never matches `phenoxyethanol`, and `alcohol` never matches `cetearyl alcohol`.
 *
 * - A plain word matches that word.
 * - A lone `*` matches any number of words, including none: `sd alcohol *`, `* seed oil`.
 * - A `*` inside a word matches any characters within that one word: `*stearate` matches `isostearate`.
 */

export interface NamePattern {
  readonly source: string;
  /** The name itself when the pattern has no wildcard, so lookups can use a map. */
  readonly exact: string | null;
  readonly regex: RegExp;
}

const WORD_CHARS = /^[a-z0-9*\-/,'&+]+$/;

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Compiles one pattern; throws on a malformed one so a bad data file fails at load, not at match time. */
export function compilePattern(source: string): NamePattern {
  const words = source.split(' ');
  if (source !== source.trim() || source.includes('  ') || words.some((w) => !WORD_CHARS.test(w))) {
    throw new Error(`malformed ingredient pattern "${source}": lowercase words separated by single spaces`);
  }
  // The name is matched with a leading space so every word, the first included, is " word".
  const body = words
    .map((word) => {
      if (word === '*') return '(?: \\S+)*';
      return ` ${word.split('*').map(escapeRegex).join('\\S*')}`;
    })
    .join('');
  return {
    source,
    exact: source.includes('*') ? null : source,
    regex: new RegExp(`^${body}$`),
  };
}

export function matchesName(pattern: NamePattern, name: string): boolean {
  return pattern.exact !== null ? pattern.exact === name : pattern.regex.test(` ${name}`);
}
