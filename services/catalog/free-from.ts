/**
 * What a free-from attribute (fragrance_free, alcohol_free, fungal_acne_safe) rests on, and the checks that
 * keep it from saying "free" on a list the parser may have misread (DESIGN: unknown, never "free from").
 *
 * The parser reads entries at separators; a label typed with a separator it does not know glues names
 * together (`Alcohol Denat.・Parfum` read as one unknown entry), and an unknown entry flags nothing. Two
 * checks that do not depend on where entries were cut make such a list's attributes unknown instead:
 *
 * - the text, cut at every character no name holds, has a piece the knowledge base reads as what the
 *   attribute excludes (`Aqua+Parfum`, `Alcohol Denat.※Glycerin`: `parfum`, `alcohol denat`) that no entry
 *   was read as, or a note in brackets names it (`Witch Hazel (contains 14% alcohol)`);
 * - an entry reads as several names run together: two names the knowledge base knows (`Glycerin Parfum`),
 *   or more words than one INCI name holds.
 */
import { MAX_NAME_WORDS } from './inci/list-shape.ts';
import { cleanEntry, remember } from './inci/parse.ts';
import { canonicalName, isKnownSpelling, normalizeSpelling } from './inci/synonyms.ts';
import { ingredientFacts } from './knowledge/facts.ts';
import { isKnownName } from './knowledge/names.ts';

/** The formulation flags a free-from attribute is the absence of. */
export const FREE_FROM_FLAGS = ['fragrance', 'drying_alcohol', 'fungal_acne_trigger'] as const;
export type FreeFromFlag = (typeof FREE_FROM_FLAGS)[number];

/**
 * Whether an ingredient (canonical name) raises the flag. Fragrance: fragrance, fragrant oils and extracts,
 * allergens, but not an allergen that is in practice a preservative (benzyl alcohol: knowledge/README.md).
 */
export const RAISES: Readonly<Record<FreeFromFlag, (name: string) => boolean>> = {
  fragrance: (name) => {
    const entry = ingredientFacts(name).cautions.fragrance;
    return entry !== null && entry.kind !== 'preservative';
  },
  drying_alcohol: (name) => ingredientFacts(name).cautions['drying-alcohols'] !== null,
  fungal_acne_trigger: (name) => ingredientFacts(name).cautions['fungal-acne'] !== null,
};

/**
 * Where the text may hold a name whatever its separators: at every character that no name holds (any but
 * letters, digits, spaces and `'.()[]/%-`), at a comma not between digits, and at a hyphen joining a
 * lower-case letter to a capital (`Aqua-Parfum`; `Bis-PEG-18` stays apart harmlessly).
 */
const PIECE_BREAK = /[^\p{L}\p{M}\p{N} '’.()[\]/%-]+|,(?!\d)|(?<=[\p{Ll}.)\]])-(?=\p{Lu})/u;

/**
 * For each of the flags, the first piece of the text that raises it, read as the knowledge base reads a
 * name (so its wildcards and exceptions hold: `Glycerin Fragrance` is fragrance, `Cetearyl Alcohol` no
 * alcohol). A slash joins the spellings of one name (`Aqua/Water`), or two names a list ran together:
 * each part is read too.
 */
export function namedTerms(text: string, flags: readonly FreeFromFlag[]): Map<FreeFromFlag, string> {
  const found = new Map<FreeFromFlag, string>();
  if (flags.length === 0) return found;
  for (const piece of text.split(PIECE_BREAK)) {
    const parts = piece.includes('/') ? [piece, ...piece.split('/')] : [piece];
    for (const part of piece.includes('(') || piece.includes('[') ? [...parts, ...noteRuns(piece)] : parts) {
      const read = readPiece(part);
      if (read === null) continue;
      for (const flag of flags) if (!found.has(flag) && RAISES[flag](read.name)) found.set(flag, read.label);
    }
  }
  return found;
}

/** A note in brackets after a name: `Witch Hazel (contains 14% alcohol)`, `Extract (in alcohol)`. */
const NOTE = /\(([^()]*)\)|\[([^[\]]*)\]/g;
/** A note that says what is absent (`(alcohol-free)`, `(without parfum)`, `(0% alcohol)`) names nothing held. */
const ABSENT = /\b(?:free|without|no|non|not|sans|ohne|frei|senza|sin|zero)\b|\b0\s*%/i;

/**
 * Every run of words, up to one INCI name long, of the notes in brackets of a piece: the parser drops a
 * note in words as shop copy (`Alcohol (from sugar cane)` is alcohol), so one that names what a product
 * holds (`Hamamelis Virginiana (Witch Hazel) Distillate (14% Alcohol)`, `Aloe (preserved with alcohol)`,
 * `Extract (with essential oils)`) is read here, word by word. A common name after a Latin one
 * (`(Lavender)`, `(Orange)`) raises nothing. A run inside a longer name raises too: `(fatty alcohol)`
 * leaves alcohol_free unknown, never wrongly true.
 */
function noteRuns(piece: string): string[] {
  const runs: string[] = [];
  for (const [, round, square] of piece.matchAll(NOTE)) {
    const note = round ?? square ?? '';
    if (ABSENT.test(note)) continue;
    const words = note.split(/[\s,;]+/).filter(Boolean);
    for (let i = 0; i < words.length; i++) {
      // Longest first, so the note's own spelling is what the import's warning quotes.
      for (let end = Math.min(words.length, i + MAX_NAME_WORDS); end > i; end--) {
        runs.push(words.slice(i, end).join(' '));
      }
    }
  }
  return runs;
}

/**
 * A list cut short says so: an ellipsis (`Niacinami…`, `...`, `. . .`, `⋯`) anywhere, `etc.` or a closing
 * `and more` (retailers truncate long lists). What was cut may be fragrance or alcohol. Dot leaders of four
 * or more (`Zinc Oxide 18.9% ........ Sunscreen`, a drug-facts panel) are no ellipsis.
 */
const CUT_OFF = /…|(?<!\.\s?)\.(?:\s?\.){2}(?!\s?\.)|\betc\b\.?|(?:\band|&)\s+more\b\W*$/iu;

/** The mark that shows a list was cut short, or null. */
export function cutOff(text: string): string | null {
  return CUT_OFF.exec(text)?.[0].trim() ?? null;
}

/** A catalog repeats the same pieces and entries: what each reads as is memoised (bounded, as parse.ts's). */
const pieceMemo = new Map<string, { label: string; name: string } | null>();
const runMemo = new Map<string, boolean>();

/** A piece's cleaned label and canonical name, or null when no name is left. */
function readPiece(piece: string): { label: string; name: string } | null {
  const known = pieceMemo.get(piece);
  if (known !== undefined) return known;
  const label = piece.trim() === '' ? null : cleanEntry(piece);
  return remember(pieceMemo, piece, label === null ? null : { label, name: canonicalName(label) });
}

/** A name the knowledge base or the synonym table knows. */
const known = (spelled: string) => isKnownSpelling(spelled) || isKnownName(spelled);

/**
 * An entry that reads as several names run together: it is no name the knowledge base or the synonym
 * table knows as written (a wildcard such as `* glycerin` does not vouch for `Butylene Glycol Glycerin`),
 * and it holds two that they do, one after the other (`Glycerin Parfum`), or more words than one INCI name
 * holds.
 */
export function runTogether(label: string, name: string): boolean {
  if (known(name)) return false;
  return runMemo.get(label) ?? remember(runMemo, label, holdsNames(label));
}

function holdsNames(label: string): boolean {
  const words = normalizeSpelling(label.replace(/\([^)]*\)|\[[^\]]*\]/g, ' '))
    .split(/[ /]/)
    .filter(Boolean);
  if (words.length > MAX_NAME_WORDS) return true;
  let names = 0;
  for (let i = 0; i < words.length; ) {
    let end = Math.min(words.length, i + MAX_NAME_WORDS);
    while (end > i && !known(words.slice(i, end).join(' '))) end--;
    if (end > i) names++;
    i = Math.max(end, i + 1);
  }
  return names >= 2;
}
