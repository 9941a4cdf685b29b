/**
 * INCI list parser.
 *
 * Turns an ingredient list as printed on a label, or as a retailer's spreadsheet holds it, into ordered
 * ingredients with canonical names. Real labels carry headings (`Ingredients:`, `Inactive Ingredients:`),
 * percentages, footnote marks and their legends, `May contain (+/-)` colour sections, line breaks and
 * spreadsheet debris (`#NAME?`). None of that may crash the parser or leak into an ingredient name.
 *
 * Retailer exports also put placeholders and shop copy in the field, number the entries, and lose
 * separators: `readInci` says whether the field is an ingredient list at all (list-shape.ts), leaves out
 * sentences of shop copy inside a list, drops the numbers of a numbered list (numbered.ts), and recovers
 * space-separated and glued lists. A field that is not a list parses to no
 * ingredients with status `not_a_list`, so that nothing is claimed about the product.
 */

import { withoutMarkup } from '../markup.ts';
import { withoutClaims } from './claims.ts';
import {
  isProse,
  looksLikeIngredient,
  MAX_NAME_WORDS,
  restoreGluedSeparators,
  splitRunOn,
} from './list-shape.ts';
import { withoutNumbering } from './numbered.ts';
import { hasSeparator, splitEntries, unifySeparators } from './split.ts';
import { canonicalName } from './synonyms.ts';

export interface Ingredient {
  /** The entry as printed, without footnote marks, percentages and stray punctuation. */
  readonly label: string;
  /** Canonical lowercase name, the key for every knowledge lookup. */
  readonly name: string;
  /** Listed after a `may contain` / `+/-` marker: present in some shades or batches only. */
  readonly mayContain: boolean;
}

/**
 * What the field says about the list: `listed` (ingredients were read), `missing` (empty or null), or
 * `not_a_list` (a placeholder, shop copy, or words whose separators cannot be recovered).
 */
export type ListStatus = 'listed' | 'missing' | 'not_a_list';

export interface InciReading {
  readonly status: ListStatus;
  readonly ingredients: Ingredient[];
  /** Why the field is not a list, or what was left out of it; null when nothing needs saying. */
  readonly note: string | null;
  /** The field as read for ingredients: less free-from claims and key-ingredient highlights. */
  readonly text: string;
}

/** Values spreadsheets and scrapers put where a list is missing. */
const NO_LIST = new Set([
  '',
  '#name?',
  '#name',
  '#n/a',
  '#value!',
  '#ref!',
  '#error!',
  'n/a',
  'na',
  'none',
  'null',
  '-',
  '--',
  '?',
  'unknown',
  'tbd',
  'tba',
  'tbc',
]);

/**
 * Section headings, replaced by a separator (`Active Ingredients: Zinc Oxide 9%. Inactive Ingredients: …`,
 * `Ingredients - Aqua, …`). Headings in other languages are dropped as they are split (readNewEntry).
 */
const HEADING = new RegExp(
  [
    String.raw`(?:\b(?:in)?active|\bother)(?:\s+ingredients?)?(?:\s*\([^)]*\))?\s*[:：]`,
    String.raw`\b(?:full\s+|key\s+)?(?:ingredients?|ingrédients|inci|composition)(?:\s*list)?(?:\s*\([^)]*\))?\s*(?:[:：]|[-–—]\s)`,
    // The word alone at the start of the field (`Ingredients Aqua, Glycerin, …`).
    String.raw`^\s*(?:ingredients?|ingrédients|inci)\s+`,
  ].join('|'),
  'gi',
);

/**
 * `May contain`, `+/-`, `±`, and the same words on labels in French, German, Spanish, Italian, Portuguese
 * and Dutch (`Peut contenir`, `Kann enthalten`, `Puede contener`, `Può contenere`, `Pode conter`, `Kan
 * bevatten`), with optional brackets around them.
 */
const MAY_CONTAIN =
  /[[(]?\s*(?:\+\s*\/\s*[-−]|±|\b(?:may contain|peut contenir|kann enthalten|puede contener|pu[oò] contenere|pode conter|kan bevatten)\b)\s*[\])]?/i;
const MAY_CONTAIN_ALL = new RegExp(MAY_CONTAIN.source, 'gi');

/**
 * Footnote marks: asterisks, daggers, section and degree signs, carets, superscript digits, and a `+` or `#`
 * right after a name (`Fragrance+`, `Linalool#`).
 */
const FOOTNOTE_MARKS = /[*†‡§¶°^※¹²³⁴⁵⁶⁷⁸⁹⁰]+|(?<=[\p{L}\d)\]])[+#]+(?![\p{L}\d])/gu;

/** A footnote legend (`*from organic farming`) starts with a mark followed by words, not an ingredient. */
const LEGEND =
  /^\s*[*†‡§¶°^※+#¹²³⁴⁵⁶⁷⁸⁹⁰]+\s*(?=\p{L}).*\b(?:organic|natural|certified|derived|from|ingredients?|farming)\b/iu;

/**
 * `2%`, `(100%)`, `< 1 %`, `0,5%`, `(ca. 2%)`, `1-2%`; parentheses go only when they hold nothing but the percentage.
 */
const PERCENT =
  /\(\s*(?:(?:ca|approx)\.?\s*)?[<>≤≥~]?\s*(?:\d+(?:[.,]\d+)?\s*%?\s*[-–]\s*)?\d+(?:[.,]\d+)?\s*%\s*(?:w\/w)?\s*\)|[<>≤≥~]?\s*(?:\d+(?:[.,]\d+)?\s*%?\s*[-–]\s*)?\d+(?:[.,]\d+)?\s*%(?:\s*w\/w)?/gi;

/** A line that opens with a footnote mark. */
const MARKED_LINE = /^\s*[*†‡§¶°^※¹²³⁴⁵⁶⁷⁸⁹⁰]/u;

/** The period that ends a list right before its footnote legend (`Coumarin*. *from essential oils`). */
const LEGEND_START = /\.\s*(?=[*†‡§¶°^※+#¹²³⁴⁵⁶⁷⁸⁹⁰]+\s*\p{L})/gu;

/**
 * The punctuation of East Asian and full-width typing as its ASCII separators (`，` `、` `；` `（` `）` `：`
 * `。`, and every full-width letter, digit and sign as its ASCII one: `５％`), Unicode spaces as spaces, the
 * Unicode hyphens as `-`, the midline ellipsis `⋯` as `…` (a list cut short: free-from.ts), and what never
 * belongs to a name dropped: invisible characters feeds leave inside words (soft hyphen, zero-width space
 * and joiners, word joiner, BOM) and the trademark signs brands print after trade names and actives
 * (`Niacinamide®`, `Matrixyl™ 3000`).
 */
function plainPunctuation(text: string): string {
  // Every character replaced is outside ASCII, as most lists are whole.
  if (!/[^\p{ASCII}]/u.test(text)) return text;
  return text
    .replace(/[\u00a0\u2007\u202f\u2000-\u200a\u3000]/g, ' ')
    .replace(/[\u00ad\u200b-\u200d\u2060\ufeff™®©℠]/g, '')
    .replace(/[\u2010\u2011]/g, '-')
    .replace(/⋯/g, '…')
    .replace(/[，、﹐﹑]/g, ', ')
    .replace(/[；﹔]/g, '; ')
    .replace(/[：﹕]/g, ': ')
    .replace(/[。｡](?=\s*\S)/g, '. ')
    .replace(/[。｡]/g, '.')
    .replace(/[（﹙]/g, ' (')
    .replace(/[）﹚]/g, ') ')
    .replace(/﹪/g, '%')
    .replace(/[\uff01-\uff5e]/g, (wide) => String.fromCharCode(wide.charCodeAt(0) - 0xfee0));
}

/**
 * The longest field read as a list. Labels' lists run to 3 000 characters; a longer field is a page of
 * copy, and some of the parser's steps take time that grows with the square of a run of one character.
 */
export const MAX_LIST = 10_000;

/**
 * A run of spaces is one space (one line break when it holds one, one tab when it holds one): what a list
 * means never rests on how many, and a page's indentation can run to thousands.
 */
const foldSpaces = (text: string) =>
  text.replace(/\s{2,}/g, (run) => (/[\r\n]/.test(run) ? '\n' : run.includes('\t') ? '\t' : ' '));

/** Parses an INCI list; a missing or unusable value gives an empty list. */
export function parseInci(text: string | null | undefined): Ingredient[] {
  return readInci(text).ingredients;
}

/** Reads an ingredient field: its ingredients, and whether it was an ingredient list at all. */
export function readInci(text: string | null | undefined): InciReading {
  if (typeof text !== 'string' || text.trim() === '')
    return { status: 'missing', ingredients: [], note: null, text: '' };
  const normalized = unifySeparators(foldSpaces(plainPunctuation(withoutMarkup(text).normalize('NFC'))));
  if (normalized.length > MAX_LIST) {
    return notAList(`${normalized.length} characters long: no ingredient list runs past ${MAX_LIST}`);
  }
  if (NO_LIST.has(normalized.trim().toLowerCase())) return notAList(`placeholder "${quote(normalized)}"`);

  const unnumbered = withoutNumbering(normalized);
  const { text: listed, keyOnly, left } = withoutClaims(unnumbered);
  if (keyOnly) return notAList('it names only key ingredients, not the full list');
  const sections = unifyLineBreaks(restoreGluedSeparators(spacedSlashes(listed)))
    .replace(LEGEND_START, ', ')
    .replace(HEADING, ', ');
  const { main, optional } = separateMayContain(sections);
  const entries: Entry[] = [];
  const prose: string[] = [...left];
  for (const [section, mayContain] of [
    [main, false],
    [optional, true],
  ] as const) {
    for (const entry of splitEntries(section)) {
      if (LEGEND.test(entry)) break;
      const read = readEntry(entry);
      if (read === PROSE) prose.push(entry.trim());
      else if (read !== null) entries.push({ label: read.label, mayContain });
    }
  }
  const labels = recoverRunOns(entries, hasNoSeparator(unnumbered));
  if (labels === null) return notAList('no separators between its words, and none could be recovered');
  if (labels.length === 0) return notAList(`not ingredients: "${quote(prose.join(' / '))}"`);
  if (labels.filter((entry) => labelFacts(entry.label).looks).length * 2 < labels.length) {
    return notAList(`its entries do not read as ingredient names: "${quote(normalized)}"`);
  }
  const ingredients = toIngredients(labels);
  if (ingredients.length === 0) return notAList(`no ingredient names: "${quote(normalized)}"`);
  const note =
    prose.length > 0 ? `left out text that is not an ingredient: "${quote(prose.join(' / '))}"` : null;
  return { status: 'listed', ingredients, note, text: listed };
}

/**
 * One name as a label or shop page prints it, cleaned as an entry of a list is (`Salicylic Acid 2%`,
 * `Niacinamide®`, `Glycerin*`, full-width letters): the label, or null when no name is left.
 */
export function cleanEntry(text: string): string | null {
  return cleanLabel(plainPunctuation(text.normalize('NFC')));
}

/**
 * A catalog repeats the same few thousand entries: what each entry and label reads as is memoised, so an
 * import of 100 000 products checks each distinct one once. The memos are cleared when they grow past
 * MEMO_LIMIT, so a stream of unique text cannot grow them without bound.
 */
const MEMO_LIMIT = 200_000;
const PROSE = 'prose';
const entryMemo = new Map<string, { label: string } | typeof PROSE | null>();
const labelMemo = new Map<string, { name: string; looks: boolean }>();

/** Remembers a value in a memo that starts afresh past MEMO_LIMIT entries. */
export function remember<K, V>(memo: Map<K, V>, key: K, value: V): V {
  if (memo.size >= MEMO_LIMIT) memo.clear();
  memo.set(key, value);
  return value;
}

/** One split entry: shop copy, a cleaned label, or nothing usable (null). */
function readEntry(entry: string): { label: string } | typeof PROSE | null {
  const known = entryMemo.get(entry);
  if (known !== undefined) return known;
  return remember(entryMemo, entry, readNewEntry(entry));
}

/**
 * A name followed by a note in words (`Alcohol (from sugar cane)`, `Squalane (olive-derived, from
 * olives)`) is the name: the note goes, the ingredient and its flags stay. A part that ended in a colon
 * and does not read as an ingredient is a heading (`Contains:`, `Inhaltsstoffe:`, `Purpose:`) and goes.
 */
function readNewEntry(entry: string): { label: string } | typeof PROSE | null {
  let text = entry;
  if (isProse(text)) {
    text = entry.replace(/\(([^()]*)\)|\[([^[\]]*)\]/g, (group, round?: string, square?: string) =>
      isProse(round ?? square ?? '') ? ' ' : group,
    );
    if (text === entry || text.trim() === '' || isProse(text)) return PROSE;
  }
  const label = cleanLabel(text);
  if (label === null || (/[:：]\s*$/.test(text) && !looksLikeIngredient(label))) return null;
  return { label };
}

/** A cleaned label's canonical name, and whether it has the shape of an ingredient name. */
function labelFacts(label: string): { name: string; looks: boolean } {
  return (
    labelMemo.get(label) ??
    remember(labelMemo, label, { name: canonicalName(label), looks: looksLikeIngredient(label) })
  );
}

function notAList(note: string): InciReading {
  return { status: 'not_a_list', ingredients: [], note, text: '' };
}

/** Shortened for a message. */
function quote(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 80 ? `${flat.slice(0, 77)}...` : flat;
}

interface Entry {
  readonly label: string;
  readonly mayContain: boolean;
}

/**
 * Entries that lost their separators are split where a name ends: every entry of at least three words in
 * a field with no list separator at all (`Aqua Glycerin Alcohol Denat. Parfum`), and anywhere an entry is
 * too long to be one INCI name. Null when a field without separators cannot be split into ingredient
 * names. A short entry that does not split is one name (`Squalane`, `Rosa Canina Fruit Oil`).
 */
function recoverRunOns(entries: readonly Entry[], runOn: boolean): Entry[] | null {
  const recovered: Entry[] = [];
  for (const entry of entries) {
    const words = wordCount(entry.label);
    const pieces = (runOn && words >= 3) || words > MAX_NAME_WORDS ? splitRunOn(entry.label) : null;
    if (pieces === null && runOn && words > MAX_NAME_WORDS) return null;
    if (pieces === null) recovered.push(entry);
    else for (const label of pieces) recovered.push({ label, mayContain: entry.mayContain });
  }
  return recovered;
}

/**
 * In a field with no other separator, a slash with spaces around it separates entries (`Water / Glycerin /
 * Alcohol Denat.`); beside commas it joins the spellings of one name (`Aqua / Water / Eau, Glycerin`).
 */
const spacedSlashes = (text: string) =>
  / \/ /.test(text) && hasNoSeparator(text) ? text.replace(/\s+\/\s+/g, ', ') : text;

/** A field with no list separator outside brackets and no line break: its separators may have been lost. */
const hasNoSeparator = (text: string) => !hasSeparator(text);

const wordCount = (label: string) =>
  label
    .replace(/\([^)]*\)/g, ' ')
    .split(/\s+/)
    .filter(Boolean).length;

function toIngredients(entries: readonly Entry[]): Ingredient[] {
  const ingredients: Ingredient[] = [];
  const seen = new Set<string>();
  for (const { label, mayContain } of entries) {
    const { name } = labelFacts(label);
    // A repeated entry (same ingredient listed as active and again as inactive) keeps its first position.
    if (name === '' || seen.has(name)) continue;
    seen.add(name);
    ingredients.push({ label, name, mayContain });
  }
  return ingredients;
}

/**
 * Line breaks in a comma-separated list only wrap long names; in a list without commas each line is one
 * entry, and so is a line of shop copy above or below a list, and a line opening with a footnote mark (a
 * marked entry, or the legend under the list: `Linalool` then `*organic` is no `Linalool organic`).
 */
function unifyLineBreaks(text: string): string {
  const lines = text.split(/\r\n|\r|\n/);
  const wrapped = lines.some((line) => /,(?![^(]*\))/.test(line));
  let joined = lines[0] ?? '';
  for (let i = 1; i < lines.length; i++) {
    const apart = !wrapped || isProse(lines[i - 1]!) || isProse(lines[i]!) || MARKED_LINE.test(lines[i]!);
    joined += (apart ? ', ' : ' ') + lines[i];
  }
  return joined;
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
    .replace(/^[^\p{L}\p{N}([]+|[\s.:;,\-–—([]+$/gu, '');
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
