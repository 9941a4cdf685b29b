/**
 * A catalog file's columns (CSV header names, JSON keys) and how their values are read, the same for every
 * format (docs/catalog-format.md): the names and the aliases exports use, one coercion table for values, and
 * the characters no stored text keeps.
 */
import { quote } from '../shared/text.ts';

export { quote };

/** Every field a record carries that is stored, in the order they are checked. */
export const FIELDS = [
  'product_id',
  'name',
  'brand',
  'product_type',
  'country',
  'image_url',
  'product_url',
  'buy_url',
  'ingredients',
  'skin_types',
  'vegan',
  'cruelty_free',
  'demo',
] as const;
export type Field = (typeof FIELDS)[number];

/**
 * Column names as exports write them, compared on their letters and digits only (case, spaces, `_`, `-`,
 * `?` and brackets aside): `Product ID`, `Ingredients (INCI)`, `Vegan?`.
 */
const ALIASES: Readonly<Record<string, Field>> = {
  ...Object.fromEntries(FIELDS.map((field) => [columnKey(field), field])),
  id: 'product_id',
  sku: 'product_id',
  productname: 'name',
  title: 'name',
  type: 'product_type',
  category: 'product_type',
  countryoforigin: 'country',
  image: 'image_url',
  imagelink: 'image_url',
  url: 'product_url',
  link: 'product_url',
  producturl: 'product_url',
  inci: 'ingredients',
  incilist: 'ingredients',
  ingredient: 'ingredients',
  ingredientsinci: 'ingredients',
  ingredientlist: 'ingredients',
  skintype: 'skin_types',
  crueltyfree: 'cruelty_free',
};

/** Whether a column name answers to a catalog field. */
export function isColumn(name: string): boolean {
  return fieldOf(name) !== undefined;
}

/** The field a column name answers to (own keys only: a column `constructor` answers to none). */
function fieldOf(name: string): Field | undefined {
  const key = columnKey(name);
  return Object.hasOwn(ALIASES, key) ? ALIASES[key] : undefined;
}

function columnKey(name: string): string {
  return name
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '');
}

/**
 * The file's columns as fields, in order. A column no field answers to, or two columns for one field,
 * refuse the file (an error naming them): read anyway, the field would be stored empty over good data.
 * `where` names the place for the message (`the header`, `line 3`).
 */
export function columnsOf(names: readonly string[], where: string): Field[] {
  const fields: Field[] = [];
  let unknown: string[] = [];
  const seen = new Map<Field, string>();
  const twice: string[] = [];
  for (const name of names) {
    const field = fieldOf(name);
    if (field === undefined) {
      unknown.push(name);
      continue;
    }
    const first = seen.get(field);
    if (first !== undefined) twice.push(`${quote(first)} and ${quote(name)} (both ${field})`);
    seen.set(field, name);
    fields.push(field);
  }
  if (unknown.length > 0) {
    unknown = [...new Set(unknown)];
    throw new Error(
      `${where} has ${unknown.length === 1 ? 'a column' : 'columns'} no catalog field answers to: ${unknown.map(quote).join(', ')}. The fields are ${FIELDS.join(', ')} (docs/catalog-format.md lists the other names each is read under); rename or remove ${unknown.length === 1 ? 'it' : 'them'}`,
    );
  }
  if (twice.length > 0) throw new Error(`${where} names a field twice: ${twice.join('; ')}`);
  return fields;
}

/**
 * C0 and C1 controls, bidi embeddings, overrides and isolates, and half a surrogate pair (a JSON `\ud800`
 * alone, which no encoding can store): never stored in a one-line field. A CRLF is one line break.
 */
const CONTROLS = /\r\n|[\p{Cc}\p{Cs}\u202a-\u202e\u2066-\u2069]/gu;
/** The same but tab, line feed and carriage return, which an ingredient list may hold. */
const LIST_CONTROLS = /(?![\t\n\r])[\p{Cc}\p{Cs}\u202a-\u202e\u2066-\u2069]/gu;

const HAS_CONTROL = /[\p{Cc}\p{Cs}\u202a-\u202e\u2066-\u2069]/u;

/** A one-line field without controls: tabs and line breaks are spaces, the others dropped. */
export function withoutControls(value: string): string {
  if (!HAS_CONTROL.test(value)) return value;
  return value.replace(CONTROLS, (c) => (c === '\t' || c === '\n' || c === '\r' || c === '\r\n' ? ' ' : ''));
}

/**
 * Invisible characters feeds leave inside words: soft hyphen, zero-width space, word joiner, BOM, Mongolian
 * vowel separator, and a zero-width joiner or non-joiner beside ASCII (between two other characters they
 * join an emoji sequence or shape Indic and Persian script, and stay).
 */
const INVISIBLE =
  /[\u00ad\u180e\u200b\u2060\ufeff]|(?<![^\p{ASCII}])[\u200c\u200d]|[\u200c\u200d](?![^\p{ASCII}])/gu;

/** Text as it is shown: without the invisible characters a feed left in it. */
export function withoutInvisible(value: string): string {
  return value.replace(INVISIBLE, '');
}

/** An ingredient list without controls but tab and line breaks. */
export function listWithoutControls(value: string): string {
  if (!HAS_CONTROL.test(value)) return value;
  return value.replace(LIST_CONTROLS, '');
}

/** What a value is, for a message saying what was received. */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return `the text ${quote(value)}`;
  return `the ${typeof value} ${quote(String(value))}`;
}

/**
 * A text field's value: a string, or a number as its decimal digits (a numeric SKU in JSON, `123456`).
 * `undefined` when it is neither; a number past 2^53 cannot be read exactly and is `undefined` too.
 */
export function textValue(value: unknown): string | null | undefined {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  if (typeof value === 'number' && Number.isFinite(value) && !Number.isInteger(value)) return String(value);
  return undefined;
}

const TRUE = new Set(['true', 'yes', 'y', '1', 'oui', 'ja', 'si', 'sí']);
const FALSE = new Set(['false', 'no', 'n', '0', 'non', 'nein']);

/** A flag: true or false, the words and numbers the table names, or empty (null). `undefined`: none of them. */
export function flagValue(value: unknown): boolean | null | undefined {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return value;
  if (value === 1 || value === 0) return value === 1;
  if (typeof value !== 'string') return undefined;
  const word = value.trim().toLowerCase();
  if (word === '') return null;
  if (TRUE.has(word)) return true;
  if (FALSE.has(word)) return false;
  return undefined;
}

/** Skin types: a list of strings, or one string of `;`-separated values. `undefined`: anything else. */
export function skinTypesValue(value: unknown): string[] | null | undefined {
  if (value === null || value === undefined || value === '') return null;
  const list = typeof value === 'string' ? value.split(';') : value;
  if (!Array.isArray(list) || !list.every((s) => typeof s === 'string')) return undefined;
  const types = list.map((s) => withoutControls(s).trim()).filter((s) => s !== '');
  return types.length === 0 ? null : types;
}

/** A message for the terminal: any control or bidi character in it written as its `\u` escape. */
export function printable(message: string): string {
  return message.replace(
    /[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
