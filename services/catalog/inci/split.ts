/**
 * Splitting an INCI list into entries.
 *
 * Commas separate entries, except inside parentheses (`Iron Oxides (CI 77491, CI 77492)`) and between digits
 * (`1,2-Hexanediol`). A label with unbalanced parentheses falls back to splitting on every separator, so one
 * stray `(` cannot swallow the rest of the list into a single entry.
 */

const OPENERS = '([{';
const CLOSERS = ')]}';

/** Replaces every character inside brackets with a space; null when the brackets do not balance. */
function maskBracketed(text: string): string | null {
  let depth = 0;
  let masked = '';
  for (const char of text) {
    if (OPENERS.includes(char)) {
      depth += 1;
      masked += ' ';
    } else if (CLOSERS.includes(char)) {
      if (depth === 0) return null;
      depth -= 1;
      masked += ' ';
    } else {
      masked += depth > 0 ? ' '.repeat(char.length) : char;
    }
  }
  return depth === 0 ? masked : null;
}

/**
 * Entry separators: a comma not between two digits, a semicolon, a bullet (every mark unifySeparators
 * writes as one), a pipe, a `(and)` that joins
 * the parts of a trade-name blend, and a stand-alone ` or ` naming alternatives (`Sodium Tallowate or Sodium
 * Palmitate`), which are kept as two entries so that either alternative raises its flags. Sentence ends
 * (`Alcohol Denat. Glycerin`, a period before a capital except after abbreviations such as `St.`), `!`, `?`
 * and `: ` separate too: they end an entry in a list whose commas were lost, and they cut shop copy into
 * pieces that can be told from ingredients. A dash (any Unicode dash), tilde, plus or asterisk with spaces
 * on both sides between words (`Aqua - Glycerin - Alcohol`, `Water – Glycerin`, `Aqua + Parfum`) separates
 * too: INCI names join their parts with unspaced hyphens (`Ceteareth-20`, `1,2-Hexanediol`). So does an
 * unspaced em dash or horizontal bar between words (`Aqua—Glycerin`), and an unspaced en dash before a
 * capital (`Aqua–Glycerin`; `C12–15`, `Steareth–20` keep theirs). A part cut at `: ` keeps its colon, so the reader
 * can tell a heading (`Contains:`, `Inhaltsstoffe:`, `Purpose:`) from an ingredient.
 */
const SEPARATOR =
  /,(?!\d)|(?<!\d),|[;•|!?]|\s+[oO][rR]\s+|(?<=[\p{L}\d.)\]%])\s+[\p{Pd}~+*−]\s+(?=[\p{L}([])|(?<=[\p{L}.)\]%])(?:[—―⸺⸻]|[–‒](?=\p{Lu}))(?=[\p{L}([])|:(?=\s)|(?<!\b(?:St|ST|Sp|Spp|Ssp|Subsp|Var|No|Vit|Nr))\.(?=\s+\p{Lu})/gu;

/**
 * Punctuation, symbols and math signs that are never part of an ingredient name, whatever the label's
 * script: bullets and middle dots (`•` `·` `・` `･` `‧` `∙` `⋅` `‣` `⁃`), geometric shapes and dingbats (`■`
 * `◆` `▪` `●` `◦` `✓`), bars (`|` `¦` `‖`), arrows, emoji, other scripts' commas (`،`). They are told by
 * their Unicode class (other punctuation, other symbol, math symbol), less the characters that do belong to
 * names, numbers and notes: ASCII punctuation (`1,2-Hexanediol`, `Aqua/Water`, `+/-`, `< 1%`), footnote marks
 * (`*` `†` `‡` `§` `¶` `°` `※`), primes, per mille, the fraction slash and the Arabic decimal marks.
 */
const LIST_MARK = /(?![!-/:-@[-`{-~±×÷−∓¬°†‡§¶※′″‴¡¿…‰‱№℃℉⁄∕٫٬])[\p{Po}\p{So}\p{Sm}]/gu;
const HAS_MARK = /[^\p{ASCII}]|\t/u;

/**
 * Every mark that separates entries written as `•`, and a tab (a spreadsheet's cell break) as ` • `, so a
 * list typed with any of them splits as a bulleted one does: `Aqua・Glycerin・Parfum` lists fragrance.
 */
export function unifySeparators(text: string): string {
  if (!HAS_MARK.test(text)) return text;
  return text.replace(LIST_MARK, '•').replace(/\t/g, ' • ');
}

/** A separator outside brackets, or a line break: a field without any may have lost them. */
export function hasSeparator(text: string): boolean {
  return /[,;•|\r\n]|\s[\p{Pd}~+*−]\s/u.test(text.replace(/\([^)]*\)/g, ''));
}

function splitAt(text: string, masked: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (const match of masked.matchAll(SEPARATOR)) {
    parts.push(text.slice(start, match.index) + (match[0] === ':' ? ':' : ''));
    start = match.index + match[0].length;
  }
  parts.push(text.slice(start));
  return parts;
}

/** Splits a list on separators outside brackets. */
export function splitEntries(text: string): string[] {
  const joined = text.replace(/\s*\(\s*and\s*\)\s*/gi, ', ');
  const masked = maskBracketed(joined);
  return splitAt(joined, masked ?? joined);
}
