/**
 * Catalog source records (docs/catalog-format.md), checked field by field with one coercion table for every
 * format (catalog-schema.ts). A record that cannot be used is rejected with its line number and the reason;
 * an optional field that cannot be used is stored empty with a warning; nothing is dropped silently.
 */

import {
  FIELDS,
  type Field,
  flagValue,
  kindOf,
  listWithoutControls,
  quote,
  skinTypesValue,
  textValue,
  withoutControls,
  withoutInvisible,
} from './catalog-schema.ts';
import type { RawProduct } from './derive.ts';
import type { ExportRecord } from './export-columns.ts';
import { readableText } from './markup.ts';

/**
 * A record read from a file, at the file line where it starts; a rejected one names its product when it can.
 * `absent`: the fields the file does not carry for it, which an import leaves as they are on a product it
 * already holds. `warnings`: what was stored otherwise than given.
 */
export type RecordResult =
  | { line: number; product: RawProduct; absent?: readonly Field[]; warnings?: readonly string[] }
  | { line: number; rejected: string; productId?: string }
  /** A product the file says its shop does not sell now (a draft, archived, private…): not imported. */
  | { line: number; skipped: string; productId: string };

const MAX_ID = 200;
/**
 * How a spreadsheet shows a long number (a barcode, a numeric SKU) in a column it took for numbers:
 * `3.60E+12`, `3,6E+12`. Saved so, the digits are gone; no shop's id has this shape.
 */
const SCIENTIFIC = /^\d(?:[.,]\d+)?E\+\d+$/i;
const MAX_TEXT = 500;

/**
 * The fields a file may leave out: on a product already stored they keep their values. Not the id and
 * name, which every record must carry, nor `demo`, which a record leaving it out sets false.
 */
export const KEPT_WHEN_ABSENT: readonly Field[] = FIELDS.filter(
  (field) => field !== 'product_id' && field !== 'name' && field !== 'demo',
);

const FLAG_WORDS = 'true/false, yes/no, y/n, 1/0, oui/non, ja/nein, sí/no, or empty';

/** A record's fields (CSV cells, JSON values) as a product; `present`: the fields the file carries. */
export function checkRecord(
  line: number,
  r: Partial<Record<Field, unknown>>,
  present: readonly Field[],
): RecordResult {
  // PostgreSQL text cannot hold U+0000: one such character would fail the whole batch it travels in.
  const nul = FIELDS.find((field) => hasNul(r[field]));
  const rawId = textValue(r.product_id);
  const namedId = nul === 'product_id' || !rawId ? null : productIdText(rawId);
  if (nul !== undefined) {
    return {
      line,
      rejected: `${nul} contains a NUL character (U+0000)`,
      ...(namedId ? { productId: namedId } : {}),
    };
  }
  if (rawId === undefined) {
    return { line, rejected: `product_id must be text or a whole number (got ${kindOf(r.product_id)})` };
  }
  const control = rawId === null ? null : /[\p{Cc}\p{Cs}]/u.exec(rawId.trim());
  if (control !== null) {
    const code = control[0].codePointAt(0)!;
    return {
      line,
      rejected: `product_id contains the control character U+${code.toString(16).toUpperCase().padStart(4, '0')}`,
    };
  }
  const productId = rawId === null ? null : productIdText(rawId);
  if (!productId) return { line, rejected: 'product_id is required' };
  if (productId.length > MAX_ID) return { line, rejected: `product_id is over ${MAX_ID} characters` };
  if (typeof r.product_id === 'string' && SCIENTIFIC.test(productId)) {
    return {
      line,
      rejected: `product_id ${quote(productId)} is a number a spreadsheet wrote in scientific notation, its digits lost (two barcodes would be one product): format the column as text and export the file again`,
    };
  }
  const problem = (reason: string): RecordResult => ({ line, rejected: reason, productId });
  const warnings: string[] = [];
  const fields: Partial<Record<keyof RawProduct, string | null>> = {};
  for (const field of ['name', 'brand', 'product_type', 'country'] as const) {
    const v = textValue(r[field]);
    if (v === undefined) return problem(`${field} must be text (got ${kindOf(r[field])})`);
    const t = v === null ? null : displayText(v);
    if (t && t.length > MAX_TEXT) return problem(`${field} is over ${MAX_TEXT} characters`);
    fields[field] = t;
  }
  if (!fields.name) return problem('name is required');
  for (const field of ['image_url', 'product_url', 'buy_url'] as const) {
    fields[field] = urlField(field, r[field], warnings);
  }
  const ingredients = ingredientsValue(r.ingredients);
  if (ingredients === undefined) {
    return problem(`ingredients must be one INCI text (got ${kindOf(r.ingredients)})`);
  }
  const skinTypes = skinTypesValue(r.skin_types);
  if (skinTypes === undefined) {
    return problem(
      `skin_types must be a list of texts or one ;-separated text (got ${kindOf(r.skin_types)})`,
    );
  }
  const flags: Partial<Record<'vegan' | 'cruelty_free' | 'demo', boolean | null>> = {};
  for (const field of ['vegan', 'cruelty_free', 'demo'] as const) {
    const v = flagValue(r[field]);
    if (v === undefined) return problem(`${field} must be ${FLAG_WORDS} (got ${kindOf(r[field])})`);
    flags[field] = v;
  }
  const absent = absentOf(present);
  return {
    line,
    product: {
      product_id: productId,
      name: fields.name,
      brand: fields.brand ?? null,
      product_type: fields.product_type ?? null,
      country: fields.country ?? null,
      image_url: fields.image_url ?? null,
      product_url: fields.product_url ?? null,
      buy_url: fields.buy_url ?? null,
      ingredients,
      skin_types: skinTypes,
      vegan: flags.vegan ?? null,
      cruelty_free: flags.cruelty_free ?? null,
      demo: flags.demo === true,
    },
    ...(absent.length > 0 ? { absent } : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}

/**
 * A shop platform's records (export-shapes.ts, shopify-json.ts), checked as any other; a skipped product is
 * named as the import stores ids, so that a stored copy of it is found.
 */
export function checkExportRecords(
  records: readonly ExportRecord[],
  fields: readonly Field[],
): RecordResult[] {
  return records.map((read): RecordResult => {
    if ('rejected' in read) return read;
    if ('skipped' in read) return { ...read, productId: productIdText(read.productId) ?? '' };
    const checked = checkRecord(read.line, read.record, fields);
    const warnings = [...read.warnings, ...('product' in checked ? (checked.warnings ?? []) : [])];
    return 'product' in checked && warnings.length > 0 ? { ...checked, warnings } : checked;
  });
}

const ABSENT = new WeakMap<readonly Field[], readonly Field[]>();

/** The fields a file leaves out, once per set of columns (a CSV's header, a JSON record's keys). */
function absentOf(present: readonly Field[]): readonly Field[] {
  let absent = ABSENT.get(present);
  if (absent === undefined) {
    absent = KEPT_WHEN_ABSENT.filter((field) => !present.includes(field));
    ABSENT.set(present, absent);
  }
  return absent;
}

/** The INCI list: one text (a list of texts is joined with commas); empty is null. */
function ingredientsValue(value: unknown): string | null | undefined {
  const list =
    Array.isArray(value) && value.every((item) => typeof item === 'string') ? value.join(', ') : value;
  const t = textValue(list);
  if (t === undefined || t === null) return t;
  const clean = listWithoutControls(t);
  return clean.trim() === '' ? null : clean;
}

/**
 * A free-text field as stored: as a person reads it (markup.ts), no controls or invisible characters, null
 * when nothing is left.
 */
function displayText(value: string): string | null {
  // Invisible characters a reference spells (`Feuchtigkeits&shy;creme`) go once it is decoded.
  return text(withoutInvisible(readableText(withoutInvisible(withoutControls(value)))));
}

/**
 * A product_id as stored: without invisible format characters (zero-width space and joiners, byte-order
 * mark, soft hyphen, direction marks and overrides), which feeds and spreadsheets leave in ids, and in
 * Unicode's composed form (NFC), so `crème` typed with a combining accent is the same product. `sku-1` and
 * `sku-1` followed by a zero-width space are one product to anyone reading them; kept apart they would be
 * listed twice in one recommendation, and a re-import would add a second copy rather than update the first.
 */
export function productIdText(value: string): string | null {
  return text(value.replace(/\p{Cf}/gu, '').normalize('NFC'));
}

function text(value: string): string | null {
  const t = value.trim();
  return t === '' ? null : t;
}

/**
 * An optional link as stored: an absolute http(s) URL (`//host/…` is read as https). Anything else — no
 * scheme (`www.brand.example/p/1`), a path (`/images/x.jpg`), another scheme, a user name or password in
 * it — is stored empty with a warning; the product is imported. The warning never repeats a password.
 */
function urlField(field: string, value: unknown, warnings: string[]): string | null {
  const given = textValue(value);
  if (given === undefined) {
    warnings.push(`${field} is not a URL (got ${kindOf(value)}): stored empty`);
    return null;
  }
  const t = given === null ? null : text(withoutControls(given));
  if (t === null) return null;
  const absolute = t.startsWith('//') ? `https:${t}` : t;
  let url: URL | null = null;
  try {
    url = new URL(absolute);
  } catch {}
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    const shown = t.includes('@') ? '' : ` ${quote(t)}`;
    warnings.push(`${field}${shown} is not an absolute http(s) URL (https://…): stored empty`);
    return null;
  }
  if (url.username !== '' || url.password !== '') {
    warnings.push(`${field} carries a user name or password, which every reader would see: stored empty`);
    return null;
  }
  return uri(absolute, url);
}

/**
 * An http(s) URL as a valid URI (the tools' output schemas say `format: uri`): a value with characters a
 * URI cannot hold (spaces, non-ASCII paths and hosts, as retailers' feeds carry them) is written as the
 * WHATWG serialisation, percent-encoded with the host in punycode (and the ASCII it leaves raw that RFC
 * 3986 forbids, encoded too); any other is kept as given.
 */
function uri(value: string, url: URL): string {
  if (URI_CHARACTERS.test(value)) return value;
  // WHATWG leaves a few ASCII characters RFC 3986 forbids (`|`, `^`, `{`…) raw in a path or query.
  return url.href.replace(
    /[^A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  );
}

/** Only characters RFC 3986 allows in a URI: such a value is kept exactly as the source gives it. */
const URI_CHARACTERS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]*$/;

function hasNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  return Array.isArray(value) && value.some((item) => typeof item === 'string' && item.includes('\u0000'));
}
