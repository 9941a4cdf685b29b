/**
 * The comparison keys of the brand and country filters: what a product's stored value and the caller's
 * filter are both reduced to before they are compared for equality. Stored and returned values never change.
 *
 * Both compare words: the text folded as text-key.ts folds it (case, NFKC width, accents of Latin letters,
 * Unicode spaces and apostrophes), trademark signs (™ ® © ℠) taken out, apostrophes dropped, `&` read as
 * `and`, and every other punctuation mark or hyphen a break between words. So `Quillon & Co.`, `Quillon
 * and Co` and `QUILLON & CO` are one brand, `La Roche Posay` and `Laroche Posay` are `La Roche-Posay`, `Paulas Choice` is
 * `Paula's Choice` (as text search reads it), `Oku Garden™` is `Oku Garden`, `Neutrogena` is `Neutrogena®`.
 * Letters and digits and their order are compared: `Verdant & Vale` is not `Vale & Verdant`. Text search
 * keeps `&` and `and` apart (a name's words, typed as the label prints them); a brand is one name whichever
 * its owner, a retailer's export or a person writes (`Marks & Spencer`, `Marks and Spencer`).
 *
 * A country's key is its ISO 3166-1 alpha-2 code, read from an alpha-2 or alpha-3 code in any case, or
 * from a country's name in the languages of the catalog's markets (i18n-iso-countries, plus the common
 * names it lacks, ALIASES below; `U.S.A.` is the words `u s a`). A value that names no country, or more
 * than one (`Congo`), keeps the exact folded comparison of text-key.ts, lower case, never equal to a code.
 */
import countries from 'i18n-iso-countries';
import { folded, key } from './text-key.ts';

/** Anything but a letter, a combining mark or a digit separates words. */
const BREAKS = /[^\p{L}\p{M}\p{N}]+/u;

/** ™ ® © ℠: marks on a name, not part of it (NFKC would make ™ and ℠ the letters `TM` and `SM`). */
const MARKS = /[\u2122\u00ae\u00a9\u2120]/g;

/** The letter and digit words of a text, folded, apostrophes dropped and `&` read as `and`, one space apart. */
function words(text: string): string {
  const plain = folded(text.replace(MARKS, ' ')).replaceAll("'", '').replaceAll('&', ' and ');
  return plain.split(BREAKS).filter(Boolean).join(' ');
}

/**
 * A brand's comparison key: its words run together, so that where a name breaks between words does not
 * matter (`L Oreal`, `LOreal`, `Laroche Posay`, `Cera Ve`, `Skin Ceuticals`: people and exports split and
 * join brand names freely, and no two brands differ only there); a brand of punctuation alone is compared
 * as text-key.ts folds it.
 */
export const brandKey = (brand: string | null | undefined): string =>
  words(brand ?? '').replaceAll(' ', '') || key(brand);

/**
 * Names callers and exports use that the library does not list, each a name of exactly one country:
 * - `Korea`, `Korea South`, `S. Korea`, `한국` (the common Korean name; the library has `대한민국`): in
 *   trade and in the beauty market (K-beauty) `Korea` is the Republic of Korea; North Korea sells into no
 *   retail catalog.
 * - `England`, `Scotland`, `Wales`, `Northern Ireland`, `Britain`: parts of the United Kingdom, which
 *   ISO 3166-1 codes GB as a whole (the parts are ISO 3166-2 subdivisions GB-ENG, GB-SCT, GB-WLS, GB-NIR).
 * - `Holland`: the common English name of the Netherlands.
 * - `Viet Nam`: ISO 3166-1's own short name (the library has `Vietnam`).
 * - `Macau`: the common spelling of Macao; `Hong Kong SAR`: the official short form.
 * (`UK`, `USA`, `U.S.`, `U.S.A.`, `Great Britain`, `South Korea`, `Republic of Korea`, `Czechia`, `Turkey`,
 * `UAE` and the countries' names in fr, de, es, it, pt, nl, sv, ja, ko and zh come from the library.)
 */
const ALIASES: Readonly<Record<string, string>> = {
  korea: 'KR',
  'korea south': 'KR',
  's korea': 'KR',
  한국: 'KR',
  england: 'GB',
  scotland: 'GB',
  wales: 'GB',
  'northern ireland': 'GB',
  britain: 'GB',
  holland: 'NL',
  'viet nam': 'VN',
  macau: 'MO',
  'hong kong sar': 'HK',
};

/** English and the languages of the catalog's markets (sample catalog: CA US KR JP GB FR DE AU IT SE ES). */
const LANGUAGES = ['en', 'fr', 'de', 'es', 'it', 'pt', 'nl', 'sv', 'ja', 'ko', 'zh'];

/** Country names (as words) to their alpha-2 code; a name of two countries in any language is left out. */
const NAMES: ReadonlyMap<string, string> = (() => {
  const found = new Map<string, Set<string>>();
  for (const language of LANGUAGES) {
    for (const [code, names] of Object.entries(countries.getNames(language, { select: 'all' }))) {
      for (const name of names) {
        const words = countryWords(name);
        const codes = found.get(words) ?? new Set();
        found.set(words, codes.add(code));
      }
    }
  }
  const names = new Map<string, string>();
  for (const [words, codes] of found) if (codes.size === 1) names.set(words, [...codes][0]!);
  for (const [words, code] of Object.entries(ALIASES)) names.set(words, code);
  return names;
})();

/** A country's words, without a leading `the` (`The Netherlands`, `the United States`). */
function countryWords(text: string): string {
  const all = words(text);
  return all.startsWith('the ') ? all.slice(4) : all;
}

/**
 * A country's comparison key: its ISO 3166-1 alpha-2 code when the value is a code (alpha-2 or alpha-3, any
 * case) or a name of one country; otherwise the value folded as text-key.ts does (lower case, never a code).
 */
export function countryKey(country: string | null | undefined): string {
  const text = countryWords(country ?? '');
  if (/^[a-z]{2}$/.test(text) && countries.isValid(text)) return text.toUpperCase();
  if (/^[a-z]{3}$/.test(text)) {
    const code = countries.alpha3ToAlpha2(text.toUpperCase());
    if (code !== undefined) return code;
  }
  return NAMES.get(text) ?? key(country);
}
