/**
 * A catalog file's text, and its records when it is JSON (docs/catalog-format.md): JSON Lines, one object a
 * line, or one JSON array of objects (a `.json` export, pretty-printed or not). Each object's keys are its
 * columns, read as CSV headers are (catalog-schema.ts): a key no field answers to refuses the file.
 */
import { checkExportRecords, checkRecord, type RecordResult } from './catalog-records.ts';
import { columnsOf, type Field, printable } from './catalog-schema.ts';
import { isShopifyJson, readShopifyJson, SHOPIFY_JSON_FIELDS } from './shopify-json.ts';

/**
 * JSON Lines, or one JSON array when the text starts with `[` (or is one object over several lines), or a
 * Shopify shop's products JSON (`{"products": […]}`).
 */
export function readJson(text: string): RecordResult[] {
  const first = text.search(/\S/);
  if (first >= 0 && text[first] === '[') return readJsonArray(text);
  if (first >= 0 && text[first] === '{') {
    // One object, perhaps pretty-printed over several lines (JSON Lines fail this at their second line).
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return readJsonLines(text);
    }
    if (isShopifyJson(value)) return readShopifyProducts(text, value.products);
    return [recordOf(lineOf(text, first), value, new Map())];
  }
  return readJsonLines(text);
}

export function readJsonLines(text: string): RecordResult[] {
  const results: RecordResult[] = [];
  const columns = new Map<string, Field[]>();
  // A JSON string cannot hold a raw line break, so every CR or LF ends a line: CRLF, and a lone CR as old Mac
  // tools write it (read at LF only, a whole file of CR line ends was one line that is not JSON).
  text.split(/\r\n|\r|\n/).forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      results.push({ line, rejected: 'not valid JSON' });
      return;
    }
    results.push(recordOf(line, value, columns));
  });
  return results;
}

/**
 * A top-level JSON array, each element a record at the line it starts on. The file is parsed whole (it is
 * read whole already): for catalogs of hundreds of thousands of products JSON Lines costs less memory.
 */
function readJsonArray(text: string): RecordResult[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`not valid JSON: ${printable((err as Error).message.slice(0, 200))}`);
  }
  if (!Array.isArray(value)) throw new Error('a JSON catalog must be one array of objects, or JSON Lines');
  const lines = elementLines(text);
  const columns = new Map<string, Field[]>();
  return value.map((element, i) => recordOf(lines[i] ?? 1, element, columns));
}

/** Shopify's products JSON (shopify-json.ts), each product named by the line its object starts on. */
function readShopifyProducts(text: string, products: readonly unknown[]): RecordResult[] {
  const start = /"products"\s*:\s*\[/.exec(text);
  const at = start === null ? 0 : start.index + start[0].length - 1;
  const offset = lineOf(text, at) - 1;
  const lines = elementLines(text.slice(at)).map((line) => line + offset);
  return checkExportRecords(readShopifyJson(products, lines), SHOPIFY_JSON_FIELDS);
}

function recordOf(line: number, value: unknown, columns: Map<string, Field[]>): RecordResult {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { line, rejected: 'a record must be a JSON object' };
  }
  const keys = Object.keys(value);
  const signature = keys.join('\u0000');
  let fields = columns.get(signature);
  if (fields === undefined) {
    fields = columnsOf(keys, `the record on line ${line}`);
    columns.set(signature, fields);
  }
  const source = value as Record<string, unknown>;
  const record: Partial<Record<Field, unknown>> = {};
  keys.forEach((key, i) => {
    record[fields[i]!] = source[key];
  });
  return checkRecord(line, record, fields);
}

/** The line each element of a top-level array starts on. */
function elementLines(text: string): number[] {
  const lines: number[] = [];
  let line = 1;
  let depth = 0;
  let inString = false;
  let expecting = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n' || (c === '\r' && text[i + 1] !== '\n')) line++;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (depth === 1 && c !== ',' && c !== ']' && c !== ' ' && c !== '\t' && c !== '\n' && c !== '\r') {
      if (lines.length === 0 || expecting) lines.push(line);
      expecting = false;
    }
    if (c === ',' && depth === 1) expecting = true;
    if (c === '"') inString = true;
    else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') depth--;
  }
  return lines;
}

function lineOf(text: string, at: number): number {
  let line = 1;
  for (let i = 0; i < at; i++) if (text[i] === '\n' || (text[i] === '\r' && text[i + 1] !== '\n')) line++;
  return line;
}

/**
 * A catalog file's text: UTF-8 (a byte-order mark is dropped), or UTF-16 when it starts with its mark (a
 * spreadsheet's "Unicode text") or, without one, with two characters from ASCII. Anything else — a spreadsheet's legacy "CSV" in Windows-1252, say — would
 * read `Crème` as `Cr\uFFFDme` in every product it touches, so the file is refused, naming the first line
 * that is not UTF-8.
 */
export function catalogText(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes);
  // UTF-16 without its mark (some exporters write none): a header's first two characters, from ASCII, are
  // each a NUL byte beside a letter, which no UTF-8 text starts with. Read as UTF-8, every other byte of
  // the file was a NUL, so each row was rejected for it.
  const nul = (i: number) => bytes[i] === 0;
  if (bytes.length >= 4 && !nul(0) && nul(1) && !nul(2) && nul(3)) {
    return new TextDecoder('utf-16le').decode(bytes);
  }
  if (bytes.length >= 4 && nul(0) && !nul(1) && nul(2) && !nul(3)) {
    return new TextDecoder('utf-16be').decode(bytes);
  }
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
