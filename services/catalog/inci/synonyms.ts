/**
 * Canonical ingredient names.
 *
 * Labels spell one ingredient many ways (`Aqua`, `Water (Aqua)`, `Aqua/Water/Eau`, `Parfum`, `Vitamin E`).
 * Everything downstream (knowledge lookups, flags, key ingredients) keys on one canonical lowercase name,
 * so two labels of the same formula derive the same product.
 */
import data from './synonyms.json' with { type: 'json' };

const NON_ASCII = /[^\p{ASCII}]/u;
const LATIN_ACCENTS = /(?<=[a-z])[\u0300-\u036f]+/g;

/**
 * Synonyms, and misspellings labels print (`Niacinimide`, `Fragance`, `Salicylic Acd`): a hand-checked table
 * of exact spellings, kept apart so that `synonymsOf` names only real synonyms.
 */
const ALIASES: ReadonlyMap<string, string> = buildAliases(data.synonyms, data.misspellings);

function buildAliases(...tables: Record<string, string[]>[]): Map<string, string> {
  const aliases = new Map<string, string>();
  for (const [canonical, spellings] of tables.flatMap((table) => Object.entries(table))) {
    for (const spelling of [canonical, ...spellings]) {
      const key = normalizeSpelling(spelling);
      const earlier = aliases.get(key);
      // A spelling claimed by two canonical names would make derivation depend on file order.
      if (earlier !== undefined && earlier !== canonical) {
        throw new Error(`synonyms.json: "${spelling}" maps to both "${earlier}" and "${canonical}"`);
      }
      aliases.set(key, canonical);
    }
  }
  return aliases;
}

/**
 * Lowercase, Latin letters without accents (`Glycérine` is `glycerine`, `Parfüm` `parfum`: translated shop
 * pages and keyboards disagree on them), no periods except decimal points, single spaces, backslash read as
 * `/`, no spaces around slashes.
 */
export function normalizeSpelling(text: string): string {
  return withoutAccents(text.toLowerCase())
    .replace(/(?<!\d)\.|\.(?!\d)/g, ' ')
    .replace(/\s*[/\\]\s*/g, '/')
    .replace(/\s*-\s*/g, '-')
    .replace(/\s+/g, ' ')
    .trim();
}

function withoutAccents(text: string): string {
  return NON_ASCII.test(text) ? text.normalize('NFD').replace(LATIN_ACCENTS, '').normalize('NFC') : text;
}

/** Removes every parenthesised or bracketed part: `butyrospermum parkii (shea) butter` → `butyrospermum parkii butter`. */
function withoutParentheses(text: string): string {
  let previous = '';
  let current = text;
  // Loop so nested groups such as `(a (b))` disappear too.
  while (current !== previous) {
    previous = current;
    current = current.replace(/[([][^()[\]]*[)\]]/g, ' ');
  }
  return current.replace(/\s+/g, ' ').trim();
}

/** The contents of the first parenthesised group, if any. */
function firstParenthesised(text: string): string | null {
  const match = /[([]([^()[\]]+)[)\]]/.exec(text);
  return match?.[1]?.trim() ?? null;
}

/** `aqua/water/eau` is one ingredient when every part names the same canonical ingredient. */
function slashAlternatives(text: string): string | null {
  if (!text.includes('/')) return null;
  const parts = text.split('/').map((part) => ALIASES.get(part.trim()));
  const first = parts[0];
  if (first === undefined) return null;
  return parts.every((part) => part === first) ? first : null;
}

/** A head word that names no ingredient without its plant, with the plant part before it or not. */
const BARE_HEAD =
  /^(?:(?:leaf|flower|fruit|seed|root|bark|peel|kernel|stem|herb|callus|bud)\s+)?(?:extract|oil|butter|juice|water|wax|powder)$/;

/** Marketing words that some labels put in front of the INCI name. */
const QUALIFIER = /^(?:certified |organic |bio |natural )+/;

/** The canonical lowercase name for one cleaned label entry. */
export function canonicalName(label: string): string {
  const spelled = normalizeSpelling(label);
  const direct = ALIASES.get(spelled);
  if (direct !== undefined) return direct;

  let base = withoutParentheses(spelled);
  if (base === '') base = firstParenthesised(spelled) ?? spelled;
  base = base.replace(QUALIFIER, '');
  const known = ALIASES.get(base) ?? slashAlternatives(base);
  if (known !== null && known !== undefined) return known;

  // `CI 77891 (Titanium Dioxide)`-style labels: the base is a bare colour index the table may not list,
  // while the parenthesised part is a known name.
  const inner = firstParenthesised(spelled);
  if (inner !== null && /^ci \d{5}$/.test(base)) {
    const innerKnown = ALIASES.get(inner);
    if (innerKnown !== undefined) return innerKnown;
  }
  // `Extract (Camellia Sinensis, Leaf)`, `Leaf Extract (Camellia Sinensis)`, `Oil (Olea Europaea)`: older
  // labels and some registries put the plant (and its part) after a bare head word, which alone names
  // nothing; the name is the plant, its part, then the head word, as INCI writes it.
  if (inner !== null && BARE_HEAD.test(base) && /^\p{L}[\p{L} ,-]*$/u.test(inner)) {
    const plant = `${inner.replace(/\s*,\s*/g, ' ')} ${base}`;
    return ALIASES.get(plant) ?? plant;
  }
  return base;
}

/** Whether a normalized spelling (normalizeSpelling) is a name or synonym the table knows. */
export function isKnownSpelling(spelled: string): boolean {
  return ALIASES.has(spelled);
}

/** Every canonical name the table knows (with synonyms or misspellings), sorted. */
export function canonicalNames(): string[] {
  return [...new Set([...Object.keys(data.synonyms), ...Object.keys(data.misspellings)])].sort();
}

/** Misspellings the table knows for a canonical name (empty for names it does not list). */
export function misspellingsOf(canonical: string): readonly string[] {
  return ownList(data.misspellings, canonical);
}

/** Other spellings the table knows for a canonical name (empty for names it does not list). */
export function synonymsOf(canonical: string): readonly string[] {
  return ownList(data.synonyms, canonical);
}

/** A table's list for a name, own keys only: an ingredient a catalog lists as `constructor` has none. */
function ownList(table: Record<string, string[]>, name: string): readonly string[] {
  return Object.hasOwn(table, name) ? table[name]! : [];
}
