/**
 * Catalog source records (docs/catalog-format.md) from JSON Lines or CSV, checked field by field. A record
 * that cannot be used is rejected with its line number and the reason; nothing is dropped silently.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import type { RawProduct } from './derive.ts';
import { readableText } from './markup.ts';

/** A record read from a file, at the file line where it starts; a rejected one names its product when it can. */
export type RecordResult =
  | { line: number; product: RawProduct }
  | { line: number; rejected: string; productId?: string };

const MAX_ID = 200;
const MAX_TEXT = 500;

export function readJsonLines(text: string): RecordResult[] {
  const results: RecordResult[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      results.push({ line, rejected: 'not valid JSON' });
      return;
    }
    results.push(checkRecord(line, value));
  });
  return results;
}

/**
 * A catalog file's text: UTF-8 (a byte-order mark is dropped), or UTF-16 when it starts with its mark (a
 * spreadsheet's "Unicode text"). Anything else — a spreadsheet's legacy "CSV" in Windows-1252, say — would
 * read `Crème` as `Cr\uFFFDme` in every product it touches, so the file is refused, naming the first line
 * that is not UTF-8.
 */
export function catalogText(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    const line = firstBadLine(bytes);
    throw new Error(
      `line ${line} is not UTF-8 text (the file is in another encoding, such as Windows-1252): save it as UTF-8 (in a spreadsheet: "CSV UTF-8") and import it again`,
    );
  }
}

function firstBadLine(bytes: Uint8Array): number {
  let start = 0;
  let line = 1;
  const strict = new TextDecoder('utf-8', { fatal: true });
  for (let i = 0; i <= bytes.length; i++) {
    if (i < bytes.length && bytes[i] !== 0x0a) continue;
    try {
      strict.decode(bytes.subarray(start, i));
    } catch {
      return line;
    }
    start = i + 1;
    line++;
  }
  return line;
}

/** Field separators a spreadsheet saves with: commas, semicolons (where the comma is the decimal mark), tabs. */
const DELIMITERS = [',', ';', '\t'] as const;

/**
 * CSV records with the file line each starts on: quoted ingredient lists span several lines, so the record
 * number is not the line an operator has to look at. The separator is the one whose header names
 * `product_id` and `name`.
 */
export function readCsv(text: string): RecordResult[] {
  let rows: string[][];
  try {
    rows = parseCsv(text, {
      delimiter: separatorOf(text),
      skip_empty_lines: true,
      bom: true,
      trim: true,
      // A row with a field too many or too few is that row's problem: rejected below, the others imported.
      relax_column_count: true,
      record_delimiter: ['\r\n', '\n', '\r'],
    });
  } catch (err) {
    const line = (err as { lines?: number }).lines ?? 0;
    return [{ line, rejected: `unreadable CSV: ${(err as Error).message}` }];
  }
  const [named, ...body] = rows;
  if (named === undefined) return [];
  // Spreadsheets capitalise headers (`Product_ID`, `NAME`): the field names are matched ignoring case.
  const header = named.map((name) => name.toLowerCase());
  for (const required of ['product_id', 'name']) {
    if (!header.includes(required)) {
      return [{ line: 1, rejected: `the header has no ${required} column (it has: ${named.join(', ')})` }];
    }
  }
  const starts = recordStartLines(text).slice(1); // the first record is the header
  return body.map((cells, index) => {
    const line = starts[index] ?? index + 2;
    if (cells.length !== header.length) {
      // Its fields are shifted, so even its product_id cannot be trusted: it names no product.
      return { line, rejected: `${cells.length} fields where the header has ${header.length}` };
    }
    const row: Record<string, string> = Object.fromEntries(header.map((name, i) => [name, cells[i]!]));
    const record: Record<string, unknown> = { ...row };
    record.skin_types = row.skin_types ? row.skin_types.split(';').map((s) => s.trim()) : null;
    for (const field of ['vegan', 'cruelty_free', 'demo']) record[field] = csvBoolean(row[field]);
    return checkRecord(line, record);
  });
}

function separatorOf(text: string): string {
  // The header is the first line: only it is read, once per separator (a catalog may be tens of megabytes).
  const end = text.search(/[\r\n]/);
  const header = end < 0 ? text : text.slice(0, end);
  const names = (delimiter: string) => {
    try {
      const [fields = []] = parseCsv(header, { delimiter, bom: true, trim: true }) as string[][];
      return fields.map((name) => name.toLowerCase());
    } catch {
      return [];
    }
  };
  return (
    DELIMITERS.find((d) => {
      const fields = names(d);
      return fields.includes('product_id') && fields.includes('name');
    }) ?? ','
  );
}

/**
 * The 1-based line on which each non-blank CSV record starts. A line break inside quotes continues the
 * record (RFC 4180; a doubled quote toggles twice, so it needs no special case); `\r\n`, `\r` and `\n`
 * each end one line.
 */
export function recordStartLines(text: string): number[] {
  const starts: number[] = [];
  let line = 1;
  let quoted = false;
  let blank = true;
  let startLine = 1;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"') quoted = !quoted;
    if (char === '\r' || char === '\n') {
      if (char === '\r' && text[i + 1] === '\n') i++;
      line++;
      if (!quoted) {
        if (!blank) starts.push(startLine);
        blank = true;
        startLine = line;
      }
      continue;
    }
    if (blank && !/[\s\uFEFF]/.test(char ?? '')) blank = false;
  }
  if (!blank) starts.push(startLine);
  return starts;
}

function csvBoolean(value: string | undefined): boolean | null | string {
  const v = (value ?? '').trim().toLowerCase();
  if (v === '') return null;
  if (v === 'true' || v === 'yes' || v === '1') return true;
  if (v === 'false' || v === 'no' || v === '0') return false;
  return value as string;
}

export function checkRecord(line: number, value: unknown): RecordResult {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { line, rejected: 'a record must be a JSON object' };
  }
  const r = value as Record<string, unknown>;
  // PostgreSQL text cannot hold U+0000: one such character would fail the whole batch it travels in.
  const nul = FIELDS.find((field) => hasNul(r[field]));
  const namedId = nul === 'product_id' ? null : productIdText(r.product_id);
  if (nul !== undefined) {
    return {
      line,
      rejected: `${nul} contains a NUL character (U+0000)`,
      ...(namedId ? { productId: namedId } : {}),
    };
  }
  const productId = productIdText(r.product_id);
  if (!productId) return { line, rejected: 'product_id is required' };
  if (productId.length > MAX_ID) return { line, rejected: `product_id is over ${MAX_ID} characters` };
  const problem = (reason: string): RecordResult => ({ line, rejected: reason, productId });
  const name = displayText(r.name);
  if (!name) return problem('name is required');
  const fields: Partial<Record<keyof RawProduct, string | null>> = {};
  for (const field of ['brand', 'product_type', 'country'] as const) {
    const v = r[field];
    if (v !== undefined && v !== null && typeof v !== 'string')
      return problem(`${field} must be a string or null`);
    const t = displayText(v);
    if (t && t.length > MAX_TEXT) return problem(`${field} is over ${MAX_TEXT} characters`);
    fields[field] = t;
  }
  for (const field of ['image_url', 'product_url', 'buy_url'] as const) {
    const t = text(r[field]);
    const url = t === null ? null : httpUrl(t);
    if (t !== null && url === null) return problem(`${field} must be an http(s) URL`);
    fields[field] = url;
  }
  const ingredients = r.ingredients ?? null;
  if (ingredients !== null && typeof ingredients !== 'string')
    return problem('ingredients must be one INCI string');
  const skinTypes = r.skin_types ?? null;
  if (skinTypes !== null && !(Array.isArray(skinTypes) && skinTypes.every((s) => typeof s === 'string'))) {
    return problem('skin_types must be a list of strings');
  }
  for (const field of ['vegan', 'cruelty_free', 'demo'] as const) {
    const v = r[field];
    if (v !== undefined && v !== null && typeof v !== 'boolean')
      return problem(`${field} must be true, false or null`);
  }
  return {
    line,
    product: {
      product_id: productId,
      name,
      brand: fields.brand ?? null,
      product_type: fields.product_type ?? null,
      country: fields.country ?? null,
      image_url: fields.image_url ?? null,
      product_url: fields.product_url ?? null,
      buy_url: fields.buy_url ?? null,
      ingredients: ingredients as string | null,
      skin_types: skinTypes as string[] | null,
      vegan: (r.vegan as boolean | undefined) ?? null,
      cruelty_free: (r.cruelty_free as boolean | undefined) ?? null,
      demo: r.demo === true,
    },
  };
}

/** A free-text field as stored: as a person reads it (markup.ts), null when nothing readable is left. */
function displayText(value: unknown): string | null {
  return text(typeof value === 'string' ? readableText(value) : value);
}

/**
 * A product_id as stored: without invisible format characters (zero-width space and joiners, byte-order
 * mark, soft hyphen, direction marks), which feeds and spreadsheets leave in ids. `sku-1` and `sku-1` followed
 * by a zero-width space are one product to anyone reading them; kept apart they would be listed twice in one
 * recommendation, and a re-import would add a second copy rather than update the first.
 */
function productIdText(value: unknown): string | null {
  return text(typeof value === 'string' ? value.replace(/\p{Cf}/gu, '') : value);
}

function text(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const t = value.trim();
  return t === '' ? null : t;
}

/**
 * An http(s) URL as a valid URI (the tools' output schemas say `format: uri`): a value with characters a
 * URI cannot hold (spaces, non-ASCII paths and hosts, as retailers' feeds carry them) is written as the
 * WHATWG serialisation, percent-encoded with the host in punycode (and the ASCII it leaves raw that RFC
 * 3986 forbids, encoded too); any other is kept as given. Null when
 * the value is not an http(s) URL.
 */
function httpUrl(value: string): string | null {
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    if (URI_CHARACTERS.test(value)) return value;
    // WHATWG leaves a few ASCII characters RFC 3986 forbids (`|`, `^`, `{`…) raw in a path or query.
    return url.href.replace(
      /[^A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]/g,
      (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
    );
  } catch {
    return null;
  }
}

/** Only characters RFC 3986 allows in a URI: such a value is kept exactly as the source gives it. */
const URI_CHARACTERS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]*$/;

/** Every field a record carries that is stored, in the order they are checked. */
const FIELDS = [
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
] as const;

function hasNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  return Array.isArray(value) && value.some((item) => typeof item === 'string' && item.includes('\u0000'));
}
