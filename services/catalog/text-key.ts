/**
 * How the catalog compares text: the one folding behind the brand and country filters, text search (query
 * and stored text alike) and the "same product" check of recommendations. Retailers and callers write the
 * same words with other code points: composed or decomposed accents, full-width letters, case, runs of
 * spaces, and the punctuation keyboards and exports disagree on — `Kiehl’s` (U+2019) typed `Kiehl's`,
 * `Anti‑Ageing` (U+2011) typed `Anti-Ageing`, a no-break space typed as a space, and accents a keyboard
 * leaves out — `L'Oreal` typed for `L'Oréal`, `Creme` for `Crème`, `Tolpa` for `Tołpa`. `&` and `and` are other words and stay apart here (the brand filter reads them as one: filter-keys.ts). Stored and returned values are never changed: only their comparison keys are.
 */

/**
 * NFKC, one apostrophe, one hyphen, Latin letters without their accents, then lower case: what filters and
 * text search both compare. ASCII text without a backtick (most of a catalog) is its own folding and skips
 * it: normalising every ingredient list made a 100 000-product index 248 → 446 ms to build.
 */
export const folded = (text: string) =>
  (NON_ASCII.test(text) || text.includes('`') ? foldNonAscii(text) : text).toLowerCase();

/**
 * A filter's comparison key: folded, trimmed, every run of spaces (any Unicode space) one space.
 */
export const key = (value: string | null | undefined) =>
  folded(value ?? '')
    .trim()
    .replace(/\s+/g, ' ');

const NON_ASCII = /[^\p{ASCII}]/u;

/**
 * Apostrophes as exports write them: ’ ‘ ‛ ʼ ʻ ′ and the backtick; the acute accent alone (´) is one after
 * NFKC (a space and a combining acute, never an accent on a letter).
 */
const APOSTROPHES = /[`\u2018\u2019\u201b\u02bc\u02bb\u2032]|\u0020\u0301/g;
/** Hyphens and dashes: ‐ ‑ ‒ – — ― and the minus sign (NFKC leaves them, and maps the small and full-width ones to them). */
const DASHES = /[\u2010-\u2015\u2212]/g;
/** Invisible characters a feed leaves inside words: soft hyphen, zero-width space and joiners, word joiner, BOM. */
const INVISIBLE = /[\u00ad\u200b-\u200d\u2060\ufeff]/g;

/** Latin letters that carry an accent once composed (Latin-1, Latin Extended-A/B and Additional). */
const ACCENTED_LATIN = /[\u00c0-\u024f\u1e00-\u1eff]/;
/**
 * An accent on a Latin letter once decomposed (é è ê ë ç ñ å ō …: the letter, then its combining marks).
 * Marks on other scripts stay: in Cyrillic (й), Japanese (が) or Greek they make another letter.
 */
const LATIN_ACCENTS = /(?<=[A-Za-z])[\u0300-\u036f]+/g;

/**
 * Latin letters no decomposition takes apart, as keyboards without them write them: `Tołpa` typed `Tolpa`,
 * `Æsop` typed `Aesop`, `Søstrene` typed `Sostrene`, `Straße` typed `Strasse`, `Işık` typed `Isik`.
 */
const PLAIN_LETTERS: Readonly<Record<string, string>> = {
  ß: 'ss',
  ẞ: 'SS',
  æ: 'ae',
  Æ: 'AE',
  œ: 'oe',
  Œ: 'OE',
  ø: 'o',
  Ø: 'O',
  ł: 'l',
  Ł: 'L',
  đ: 'd',
  Đ: 'D',
  ð: 'd',
  Ð: 'D',
  þ: 'th',
  Þ: 'TH',
  ı: 'i',
  ħ: 'h',
  Ħ: 'H',
  ŧ: 't',
  Ŧ: 'T',
};
const UNDECOMPOSABLE = new RegExp(`[${Object.keys(PLAIN_LETTERS).join('')}]`, 'g');

function foldNonAscii(text: string): string {
  const plain = text.normalize('NFKC').replace(APOSTROPHES, "'").replace(DASHES, '-').replace(INVISIBLE, '');
  return ACCENTED_LATIN.test(plain)
    ? plain
        .normalize('NFD')
        .replace(LATIN_ACCENTS, '')
        .replace(UNDECOMPOSABLE, (letter) => PLAIN_LETTERS[letter]!)
        .normalize('NFC')
    : plain;
}

/** Sizes and pack words in a product name: `50ml`, `1.7 fl oz`, `(30 g)`, `Travel Size`, `Mini`, `Refill`. */
const SIZE =
  /[([]?\b(?:\d+(?:[.,]\d+)?\s*(?:ml|l|cl|g|kg|mg|oz|fl\.?\s*oz|floz)|travel\s+size|mini|jumbo|refill|value\s+size)\b\.?[)\]]?/g;

/** A product's name without its size, as filters compare text: the same product in another size has it too. */
export function sameProductName(name: string): string {
  return key(name)
    .replace(SIZE, ' ')
    .replace(/[\s\-,/|:]+/g, ' ')
    .trim();
}
