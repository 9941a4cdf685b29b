/**
 * INCI list parser.
 *
 * Turns an ingredient list as printed on a label, or as a retailer's spreadsheet holds it, into ordered
 * ingredients with canonical names. Real labels carry headings (`Ingredients:`, `Inactive Ingredients:`),
 * percentages, footnote marks and their legends, `May contain (+/-)` colour sections, line breaks and
 * spreadsheet debris (`#NAME?`). None of that may crash the parser or leak into an ingredient name;
 * an unusable value parses to no ingredients.
 */
import { splitEntries } from './split.ts';
import { canonicalName } from './synonyms.ts';

export interface Ingredient {
  /** The entry as printed, without footnote marks, percentages and stray punctuation. */
  readonly label: string;
  /** Canonical lowercase name, the key for every knowledge lookup. */
  readonly name: string;
  /** Listed after a `may contain` / `+/-` marker: present in some shades or batches only. */
  readonly mayContain: boolean;
}

/** Values spreadsheets and scrapers put where a list is missing. */
const NO_LIST = new Set([
  '',
  '#name?',
  '#n/a',
  '#value!',
  '#ref!',
  '#error!',
  'n/a',
  'na',
  'none',
  'null',
  '-',
]);

/** Section headings, replaced by a separator (`Active Ingredients: Zinc Oxide 9%. Inactive Ingredients: …`). */
const HEADING = new RegExp(
  [
    String.raw`(?:\b(?:in)?active|\bother)(?:\s+ingredients?)?(?:\s*\([^)]*\))?\s*[:：]`,
    String.raw`\b(?:full\s+|key\s+)?(?:ingredients?|ingrédients|inci|composition)(?:\s*list)?(?:\s*\([^)]*\))?\s*[:：]`,
  ].join('|'),
  'gi',
);

/** `May contain`, `+/-`, `±`, `Peut contenir`, with optional brackets around them. */
const MAY_CONTAIN = /[[(]?\s*(?:\+\s*\/\s*[-−]|±|\bmay contain\b|\bpeut contenir\b)\s*[\])]?/i;
const MAY_CONTAIN_ALL = new RegExp(MAY_CONTAIN.source, 'gi');

/** Footnote marks: asterisks, daggers, superscript digits. */
const FOOTNOTE_MARKS = /[*†‡§¹²³⁴⁵⁶⁷⁸⁹⁰]+/g;

/** A footnote legend (`*from organic farming`) starts with a mark followed by words, not an ingredient. */
const LEGEND =
  /^\s*[*†‡§¹²³⁴⁵⁶⁷⁸⁹⁰]+\s*\p{L}.*\b(?:organic|natural|certified|derived|from|ingredients?|farming)\b/iu;

/** `2%`, `(100%)`, `< 1 %`, `0,5%`; parentheses go only when they hold nothing but the percentage. */
const PERCENT =
  /\(\s*[<>≤≥~]?\s*\d+(?:[.,]\d+)?\s*%\s*(?:w\/w)?\s*\)|[<>≤≥~]?\s*\d+(?:[.,]\d+)?\s*%(?:\s*w\/w)?/gi;

/** The period that ends a list right before its footnote legend (`Coumarin*. *from essential oils`). */
const LEGEND_START = /\.\s*(?=[*†‡§¹²³⁴⁵⁶⁷⁸⁹⁰]+\s*\p{L})/gu;

/** Parses an INCI list; a missing or unusable value gives an empty list. */
export function parseInci(text: string | null | undefined): Ingredient[] {
  if (typeof text !== 'string') return [];
  const normalized = text.normalize('NFC').replace(/[\u00a0\u2007\u202f]/g, ' ');
  if (NO_LIST.has(normalized.trim().toLowerCase())) return [];

  const sections = unifyLineBreaks(normalized).replace(LEGEND_START, ', ').replace(HEADING, ', ');
  const { main, optional } = separateMayContain(sections);
  const ingredients: Ingredient[] = [];
  const seen = new Set<string>();
  for (const [section, mayContain] of [
    [main, false],
    [optional, true],
  ] as const) {
    for (const entry of splitEntries(section)) {
      if (LEGEND.test(entry)) break;
      const label = cleanLabel(entry);
      if (label === null) continue;
      const name = canonicalName(label);
      // A repeated entry (same ingredient listed as active and again as inactive) keeps its first position.
      if (name === '' || seen.has(name)) continue;
      seen.add(name);
      ingredients.push({ label, name, mayContain });
    }
  }
  return ingredients;
}

/**
 * Line breaks in a comma-separated list only wrap long names; in a list without commas each line is one
 * entry.
 */
function unifyLineBreaks(text: string): string {
  const lines = text.split(/\r\n|\r|\n/);
  const separator = lines.some((line) => line.includes(',')) ? ' ' : ', ';
  return lines.join(separator);
}

function separateMayContain(text: string): { main: string; optional: string } {
  const match = MAY_CONTAIN.exec(text);
  if (match === null) return { main: text, optional: '' };
  const main = text.slice(0, match.index).replace(/[[(]\s*$/, '');
  const optional = text
    .slice(match.index)
    .replace(MAY_CONTAIN_ALL, ' ')
    .replace(/[[\]]/g, ' ')
    .replace(/\(\s*\)/g, ' ')
    .replace(/^[\s:.,-]+/, '');
  return { main, optional };
}

/** The printable label of one entry, or null when nothing usable is left. */
function cleanLabel(entry: string): string | null {
  const label = entry
    .replace(FOOTNOTE_MARKS, '')
    .replace(PERCENT, ' ')
    .replace(/\(\s*\)|\[\s*\]/g, ' ')
    .replace(/\s+/g, ' ')
    .replace(/^[\s.:;,\-–—)\]]+|[\s.:;,\-–—([]+$/g, '');
  if (label === '' || NO_LIST.has(label.toLowerCase()) || !/\p{L}/u.test(label)) return null;
  return balanceParentheses(label);
}

/**
 * Repairs what splitting a malformed list leaves behind: an unclosed `(` loses what follows it (`Water (Aqua`
 * is still water), a stray `)` is dropped.
 */
function balanceParentheses(label: string): string {
  let repaired = label;
  while ((repaired.match(/\(/g) ?? []).length > (repaired.match(/\)/g) ?? []).length) {
    repaired = repaired.slice(0, repaired.lastIndexOf('(')).trim();
  }
  while ((repaired.match(/\)/g) ?? []).length > (repaired.match(/\(/g) ?? []).length) {
    const stray = repaired.indexOf(')');
    repaired = `${repaired.slice(0, stray)} ${repaired.slice(stray + 1)}`.replace(/\s+/g, ' ').trim();
  }
  return repaired === '' ? label.replace(/[()]/g, ' ').replace(/\s+/g, ' ').trim() : repaired;
}
