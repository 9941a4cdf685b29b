/**
 * Text search of products (search_products): the words of a query, as filters compare text (text-key.ts)
 * and without apostrophes, each found literally in a product's name, brand or ingredient list, or, where
 * words name an ingredient or group of the knowledge base (`vitamin c`, `hyaluronic acid`, `bha`), in the
 * canonical names of its parsed ingredients (ingredient-book.ts, ingredientMatcher).
 *
 * Cost: the names are looked up once per distinct ingredient name of the catalog (a few thousand), through
 * postings (name → products) built once per catalog version, so a product is then one array read per
 * ingredient term, however many names the term covers.
 */
import type { CatalogEntry } from './catalog-index.ts';
import { ingredientMatcher } from './ingredient-book.ts';
import { key } from './text-key.ts';

/** The longest run of query words read as one ingredient name (`diethylamino hydroxybenzoyl hexyl benzoate`). */
const MAX_PHRASE = 6;

export interface SearchTerm {
  /** Words each found in the product's search text. */
  readonly words: readonly string[];
  /** For an ingredient term: 1 at each entry (index) listing a name it covers. */
  readonly listed: Uint8Array | null;
}

/** Search compares words without their apostrophes (already folded to one): `kiehls`, `kiehl's` are one word. */
export const withoutApostrophes = (text: string) => (text.includes("'") ? text.replaceAll("'", '') : text);

/** The words of a query as search compares them, each once (a word asked twice narrows nothing more). */
export const searchWords = (query: string): string[] => [
  ...new Set(withoutApostrophes(key(query)).split(' ').filter(Boolean)),
];

/**
 * The query's terms: the longest runs of words naming an ingredient or group, taken from the left, and the
 * other words one by one.
 */
export function searchTerms(words: readonly string[], entries: readonly CatalogEntry[]): SearchTerm[] {
  const terms: SearchTerm[] = [];
  for (let at = 0; at < words.length; ) {
    let length = 1;
    let matcher: ((name: string) => boolean) | undefined;
    for (let n = Math.min(MAX_PHRASE, words.length - at); n >= 1 && !matcher; n--) {
      matcher = ingredientMatcher(words.slice(at, at + n).join(' '));
      if (matcher) length = n;
    }
    terms.push({ words: words.slice(at, at + length), listed: matcher ? listing(matcher, entries) : null });
    at += length;
  }
  return terms;
}

/** Whether entry `i` has every term. */
export function hasTerms(terms: readonly SearchTerm[], entry: CatalogEntry, i: number): boolean {
  for (const term of terms) {
    if (term.listed?.[i] === 1) continue;
    for (const word of term.words) if (!entry.searchText.includes(word)) return false;
  }
  return true;
}

const postingsOf = new WeakMap<readonly CatalogEntry[], Map<string, number[]>>();

/** Each canonical ingredient name of a catalog, with the entries (indexes) listing it; built once. */
function postings(entries: readonly CatalogEntry[]): Map<string, number[]> {
  let byName = postingsOf.get(entries);
  if (!byName) {
    byName = new Map();
    for (let i = 0; i < entries.length; i++) {
      for (const { name } of entries[i]!.product.parsed_ingredients) {
        const found = byName.get(name);
        if (found === undefined) byName.set(name, [i]);
        else if (found[found.length - 1] !== i) found.push(i);
      }
    }
    postingsOf.set(entries, byName);
  }
  return byName;
}

const namesOf = new WeakMap<readonly CatalogEntry[], readonly string[]>();

/** Every canonical ingredient name the catalog's products list, sorted; built once per catalog version. */
export function listedNames(entries: readonly CatalogEntry[]): readonly string[] {
  let names = namesOf.get(entries);
  if (!names) {
    names = [...postings(entries).keys()].sort();
    namesOf.set(entries, names);
  }
  return names;
}

function listing(matcher: (name: string) => boolean, entries: readonly CatalogEntry[]): Uint8Array {
  const listed = new Uint8Array(entries.length);
  for (const [name, at] of postings(entries)) if (matcher(name)) for (const i of at) listed[i] = 1;
  return listed;
}
