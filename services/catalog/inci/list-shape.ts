/**
 * Telling an ingredient list from what retailers put in its place, and recovering lists whose separators
 * were lost.
 *
 * Retailer exports carry placeholders ("Visit the … boutique", "No Info"), marketing copy (bullet points,
 * sentences, "free from synthetic fragrance" disclaimers) and lists whose commas were lost when they were
 * copied: entries separated by spaces, or glued together (`Octisalate 4.5%Alcohol Denat.`,
 * `Alcohol .Citric Acid`). INCI names have a recognisable shape — a few words ending in a chemical or
 * botanical head word (`… Acid`, `… Oil`, `…ate`, `…ol`, a code such as `PCA` or `20`) and almost never the
 * function words of prose — which is what these checks rely on. Nothing here knows any particular product.
 */
import { isKnownSpelling, normalizeSpelling } from './synonyms.ts';

/**
 * Words of prose and shop copy that INCI names do not contain. `or` is missing on purpose (labels name
 * alternatives with it), and so is `a` (`Vitamin A`).
 */
const PROSE_WORDS = new Set(
  (
    'the an and for with without your you our we us is are be been this that these those it its to of in on ' +
    'at by from free no not visit see boutique store shop click more info information available please ' +
    'refer details help helps formula formulated suitable skin hours product products packaging box all ' +
    'types gentle benefits key dermatologist tested clinically proven ideal daily use apply leaves makes ' +
    'unknown coming soon listed synthetic added ' +
    // The words of a US drug-facts panel around its ingredients (`Purpose: Sunscreen`, `Uses`, `Warnings`).
    'drug facts purpose purposes uses warning warnings directions sunscreen treatment protectant ' +
    // Words of sentences about the list or the product (`Ingredients may vary`, `This toner contains …`).
    'ingredient ingredients vary varies contains containing toner'
  ).split(' '),
);

/** Head words and endings that close an INCI name. */
const HEAD_WORD =
  /(?:ate|ates|ite|ide|ides|ine|in|ol|ols|one|ane|ose|ase|mer|ether|oil|oils|acid|acids|extract|butter|water|aqua|juice|gum|wax|cera|powder|protein|proteins|peptide|glycol|glucan|silica|mica|talc|salt|clay|paraben|collagen|filtrate|lysate|amino|esters?|polymer|copolymer|crosspolymer|(?:eth|ium|ate)-\d+)$/i;
/**
 * `-ene` closes a name (`Limonene`), except `-ylene`, which opens one (`Butylene Glycol`); `-al` closes
 * aldehydes (`Citral`, `Hexyl Cinnamal`) but not adjectives (`Botanical`, `Natural`).
 */
const ENE = /(?<!yl)ene$|(?<!ic|ur)al$/i;
/** Codes that end a name (`Zinc PCA`, `Polysorbate 20`, `SD Alcohol 40-B`, `Vitamin E`) and `Denat.`. */
const CODE = /^(?:\d+(?:[.,]\d+)?(?:-[A-Z])?|[A-Z]\d{0,2}|[A-Z]{2,4}|[a-z]|[Dd]enat(?:ured)?\.?)$/;
/** Words that always continue the name before them: codes, polymer heads, a parenthesised part. */
const continues = (word: string) =>
  CODE.test(word) || /^(?:cross|co)?polymer$/i.test(word) || word.startsWith('(');

/** Lists of prose words with their count. */
function proseWords(text: string): { prose: number; words: number } {
  const words = text.toLowerCase().match(/\p{L}[\p{L}'’]*/gu) ?? [];
  return { prose: words.filter((word) => PROSE_WORDS.has(word)).length, words: words.length };
}

/** An entry of shop copy or a placeholder rather than an ingredient: a quarter of its words are prose. */
export function isProse(entry: string): boolean {
  const { prose, words } = proseWords(entry);
  return prose >= 3 || (prose >= 1 && prose * 4 >= words);
}

/** Words outside parentheses, where an INCI name keeps its own words. */
function outerWords(label: string): string[] {
  let depth = 0;
  let outer = '';
  for (const char of label) {
    if (char === '(' || char === '[') depth++;
    else if (char === ')' || char === ']') depth = Math.max(0, depth - 1);
    else if (depth === 0) outer += char;
  }
  return outer.split(/\s+/).filter((word) => /[\p{L}\d]/u.test(word));
}

/** A word that closes an INCI name. */
function closesName(word: string): boolean {
  const bare = word.replace(/[.,;:]+$/, '');
  const last = bare.split('/').pop() ?? bare;
  return HEAD_WORD.test(last) || ENE.test(last) || isKnownSpelling(normalizeSpelling(last));
}

/** Whether a cleaned entry has the shape of an ingredient name: a few words ending in a head word or code. */
export function looksLikeIngredient(label: string): boolean {
  const words = outerWords(label);
  const last = words.at(-1);
  if (last === undefined || words.length > MAX_NAME_WORDS) return false;
  if (isKnownSpelling(normalizeSpelling(label))) return true;
  return closesName(last) || (CODE.test(last) && !/^[a-z]$/.test(last));
}

/** INCI names rarely run past six words outside parentheses; longer entries are checked for lost separators. */
export const MAX_NAME_WORDS = 6;

/**
 * Splits an entry whose separators were lost (`Aqua Glycerin Niacinamide Butylene Glycol`) after each word
 * that closes a name, keeping codes and `Denat.` with the name before them. Null when the pieces do not
 * read as ingredient names, so the caller can tell an unrecoverable list from a recovered one.
 */
export function splitRunOn(label: string): string[] | null {
  // In a list printed in capitals every short word would look like a code.
  const text = label === label.toUpperCase() ? titleCase(label) : label;
  const words = text.split(/\s+/).filter(Boolean);
  const pieces: string[][] = [[]];
  let depth = 0;
  words.forEach((word, index) => {
    pieces.at(-1)!.push(word);
    depth += (word.match(/[([]/g) ?? []).length - (word.match(/[)\]]/g) ?? []).length;
    const next = words[index + 1];
    if (depth > 0 || next === undefined || continues(next)) return;
    if (closesName(word) || (CODE.test(word) && index > 0)) pieces.push([]);
  });
  const names = pieces.map((piece) => piece.join(' ')).filter((piece) => piece !== '');
  if (names.length < 2) return null;
  const good = names.filter(looksLikeIngredient).length;
  return good * 10 >= names.length * 7 ? names : null;
}

function titleCase(text: string): string {
  return text
    .toLowerCase()
    .replace(/(^|[\s(/-])(\p{L})/gu, (_, before: string, letter: string) => before + letter.toUpperCase());
}

/**
 * Separators lost when a list was copied: a percentage glued to the next name (`4.5%Alcohol`, or
 * `10% Octisalate` where a capital starts the next name), a period
 * moved before the next name (`Alcohol .Citric Acid`) or left without a space (`Alcohol.Citric Acid`).
 */
export function restoreGluedSeparators(text: string): string {
  return text
    .replace(/(\d\s*%)(?=\p{L})|(\d\s*%)\s+(?=\p{Lu})/gu, '$1$2, ')
    .replace(/(\p{L})\s+\.(?=\p{L})/gu, '$1, ')
    .replace(/(\p{Ll}{2})\.(?=\p{Lu}\p{Ll})/gu, '$1, ');
}
