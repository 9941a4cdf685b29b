/**
 * Catalog records from CSV as spreadsheets and shops export it (docs/catalog-format.md): comma, semicolon
 * or tab separated (Excel's "Unicode text" is the last), an Excel `sep=` line honoured, blank lines before
 * the header skipped, a quote inside an unquoted field (`Brush 5" Wide`) kept as a character, Excel's
 * `="00123"` read as `00123`, rows of empty cells skipped. A row that cannot be read is rejected on the
 * line it starts on; a file whose header cannot be used is refused whole (an Error).
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { checkExportRecords, checkRecord, type RecordResult } from './catalog-records.ts';
import { columnsOf, type Field, isColumn, printable } from './catalog-schema.ts';
import { type ExportRow, type ExportShape, exportShape } from './export-shapes.ts';

/** Field separators a spreadsheet saves with: commas, semicolons (where the comma is the decimal mark), tabs. */
const DELIMITERS = [',', ';', '\t'] as const;

/** Why csv-parse skipped a row, in the words of the row's problem (never the row's text). */
const PARSE_ERRORS: Readonly<Record<string, string>> = {
  CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE:
    'a quoted field is followed by more text before the next separator (a quote that is not the field’s end?)',
  CSV_INVALID_CLOSING_QUOTE: 'a quoted field is followed by more text before the next separator',
  CSV_MAX_RECORD_SIZE: 'the row is too large',
};

interface Row {
  readonly line: number;
  readonly cells?: string[];
  readonly error?: string;
}
type HeaderRow = { readonly line: number; readonly cells: string[] };

export function readCsv(text: string): RecordResult[] {
  const { delimiter, quoted, headerLine, headerAt } = preamble(text);
  const bytes = Buffer.from(text.slice(headerAt));
  const lines = new LineCounter(bytes, headerLine);
  const rows: Row[] = [];
  let at = 0;
  while (at < bytes.length) {
    const resume = parseRows(bytes, at, { delimiter, quoted }, lines, rows);
    if (resume === null) break;
    at = resume;
  }
  const [first, ...rest] = rows;
  if (first?.cells === undefined) {
    if (first === undefined) return [];
    throw new Error(`the header on line ${first.line} cannot be read: ${first.error}`);
  }
  const { header, body } = withoutEmptyColumns({ line: first.line, cells: first.cells }, rest);
  const shape = exportShape(header.cells);
  if (shape !== null) return readExport(shape, header.cells.length, body);
  const fields = columnsOf(header.cells, `the header (line ${header.line})`);
  for (const required of ['product_id', 'name'] as const) {
    if (!fields.includes(required)) {
      throw new Error(
        `the header (line ${header.line}) has no ${required} column (it has: ${header.cells.map((c) => JSON.stringify(c)).join(', ')})`,
      );
    }
  }
  const results: RecordResult[] = [];
  for (const { line, cells, error } of body) {
    if (cells === undefined) {
      results.push({ line, rejected: error! });
      continue;
    }
    // A spreadsheet's rows of empty cells (`,,,,`) below the data hold nothing.
    if (cells.every((cell) => cell === '')) continue;
    if (cells.length !== fields.length) {
      // Its fields are shifted, so even its product_id cannot be trusted: it names no product.
      results.push({ line, rejected: `${cells.length} fields where the header has ${fields.length}` });
      continue;
    }
    const record: Partial<Record<Field, string>> = {};
    fields.forEach((field, i) => {
      record[field] = excelText(cells[i]!);
    });
    results.push(checkRecord(line, record, fields));
  }
  return results;
}

/**
 * Without the columns a spreadsheet adds past the data (`product_id,name,,,`): no name, and no row holds
 * anything in them. A column without a name that holds a value is left, and refuses the file as any
 * column no field answers to.
 */
function withoutEmptyColumns(header: HeaderRow, body: Row[]): { header: HeaderRow; body: Row[] } {
  const empty = header.cells.flatMap((name, i) =>
    name === '' && body.every((row) => (row.cells?.[i] ?? '') === '') ? [i] : [],
  );
  if (empty.length === 0) return { header, body };
  const keep = (cells: string[]) => cells.filter((_, i) => !empty.includes(i));
  return {
    header: { ...header, cells: keep(header.cells) },
    body: body.map((row) => (row.cells === undefined ? row : { ...row, cells: keep(row.cells) })),
  };
}

/**
 * A shop platform's export (export-shapes.ts): its readable rows go to the platform's reader together,
 * since one product may span several rows; the reader's records are checked as any other.
 */
function readExport(shape: ExportShape, width: number, body: readonly Row[]): RecordResult[] {
  const results: RecordResult[] = [];
  const rows: ExportRow[] = [];
  for (const { line, cells, error } of body) {
    if (cells === undefined) results.push({ line, rejected: error! });
    else if (cells.every((cell) => cell === '')) continue;
    else if (cells.length !== width) {
      results.push({ line, rejected: `${cells.length} fields where the header has ${width}` });
    } else rows.push({ line, cells: cells.map(excelText) });
  }
  results.push(...checkExportRecords(shape.read(rows), shape.fields));
  return results.sort((a, b) => a.line - b.line);
}

/**
 * Parses rows from `bytes` at `from` into `rows`, with the file line each starts on. Where to read on when
 * the parser gave up on the rest after skipping a row, else null.
 */
function parseRows(
  bytes: Buffer,
  from: number,
  { delimiter, quoted }: { delimiter: string; quoted: boolean },
  lines: LineCounter,
  rows: Row[],
): number | null {
  let resume: number | null = null;
  try {
    parseCsv(bytes.subarray(from), {
      delimiter,
      // An export that never quotes (Open Beauty Facts): a quote is a character, even opening a field.
      ...(quoted ? {} : { quote: false }),
      skip_empty_lines: true,
      trim: true,
      // A row with a field too many or too few is that row's problem: rejected below, the others imported.
      relax_column_count: true,
      // `Pure "Aqua" Mist`, `Brush 5" Wide`: a quote inside an unquoted field is a character of it.
      relax_quotes: true,
      skip_records_with_error: true,
      record_delimiter: ['\r\n', '\n', '\r'],
      on_record: (cells: string[], context) => {
        rows.push({ line: lines.rowAt(from + context.bytes), cells });
        return null;
      },
      on_skip: (err) => {
        const code = (err as unknown as { code: string }).code;
        const line = lines.rowAt(lines.position);
        if (code === 'CSV_QUOTE_NOT_CLOSED')
          throw Object.assign(new Error('quote not closed'), { code, line });
        // csv-parse reads nothing after such a row: the row ends at its line's end after the bad quote.
        const end =
          code === 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE'
            ? badQuoteEnd(bytes, lines.position, delimiter)
            : null;
        if (end !== null) {
          lines.rowAt(end);
          resume = end;
        }
        const reason = PARSE_ERRORS[code] ?? `unreadable CSV (${code})`;
        const broke = end !== null && (bytes[end - 1] === 0x0a || bytes[end - 1] === 0x0d);
        const last = broke ? lines.line - 1 : lines.line;
        rows.push({ line, error: last > line ? `${reason} (the row runs to line ${last})` : reason });
      },
    });
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'CSV_QUOTE_NOT_CLOSED') {
      const line = (err as { line?: number }).line ?? lines.rowAt(lines.position);
      throw new Error(
        `the quote opened in the row on line ${line} is never closed: every line after it would be one field. Close it or remove it`,
      );
    }
    throw new Error(`unreadable CSV: ${printable(String(code ?? (err as Error).message))}`);
  }
  return resume;
}

/**
 * Lines of the file as the parser moves through its bytes (csv-parse's own count takes a CRLF inside quotes
 * for two lines): `\r\n`, `\n` and `\r` each end one.
 */
class LineCounter {
  position = 0;
  line: number;
  private readonly bytes: Buffer;
  constructor(bytes: Buffer, line: number) {
    this.bytes = bytes;
    this.line = line;
  }

  /** The line of the first non-blank byte from the current position; the position moves on to `to`. */
  rowAt(to: number): number {
    const { bytes } = this;
    let i = this.position;
    while (
      i < bytes.length &&
      (bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0a || bytes[i] === 0x0d)
    ) {
      i++;
    }
    this.count(this.position, i);
    const start = this.line;
    const end = Math.max(i, Math.min(to, bytes.length));
    this.count(i, end);
    this.position = end;
    return start;
  }

  /** Counts the line breaks in bytes[from, to). */
  private count(from: number, to: number): void {
    const { bytes } = this;
    let i = from;
    for (;;) {
      let lf = bytes.indexOf(0x0a, i);
      let cr = bytes.indexOf(0x0d, i);
      if (lf < 0 || lf >= to) lf = to;
      if (cr < 0 || cr >= to) cr = to;
      const at = Math.min(lf, cr);
      if (at >= to) return;
      // A CRLF is one line break, also when the position stopped between its two bytes.
      if (!(at === lf && at > 0 && bytes[at - 1] === 0x0d)) this.line++;
      i = at + 1;
    }
  }
}

/**
 * Where the line with a row's bad closing quote ends (after its line break): the row's fields are walked as
 * csv-parse reads them with relax_quotes, to the quoted field followed by more text.
 */
function badQuoteEnd(bytes: Buffer, from: number, delimiter: string): number | null {
  const sep = delimiter.charCodeAt(0);
  const blank = (b: number | undefined) => b === 0x20 || b === 0x09 || b === 0x0d || b === 0x0a;
  let i = from;
  while (i < bytes.length && blank(bytes[i])) i++;
  for (;;) {
    while (bytes[i] === 0x20 || (bytes[i] === 0x09 && sep !== 0x09)) i++;
    if (bytes[i] === 0x22) {
      let j = i + 1;
      while (j < bytes.length && !(bytes[j] === 0x22 && bytes[j + 1] !== 0x22))
        j += bytes[j] === 0x22 ? 2 : 1;
      let k = j + 1;
      while (bytes[k] === 0x20 || (bytes[k] === 0x09 && sep !== 0x09)) k++;
      if (k >= bytes.length) return null;
      if (bytes[k] === sep) {
        i = k + 1;
        continue;
      }
      if (bytes[k] === 0x0a || bytes[k] === 0x0d) return null;
      while (k < bytes.length && bytes[k] !== 0x0a && bytes[k] !== 0x0d) k++;
      return bytes[k] === 0x0d && bytes[k + 1] === 0x0a ? k + 2 : Math.min(k + 1, bytes.length);
    }
    while (i < bytes.length && bytes[i] !== sep && bytes[i] !== 0x0a && bytes[i] !== 0x0d) i++;
    if (bytes[i] !== sep) return null;
    i++;
  }
}

/** Excel's way to keep leading zeros, `="00123"`: the text inside. */
function excelText(cell: string): string {
  return cell.startsWith('="') && cell.endsWith('"') && cell.length >= 3
    ? cell.slice(2, -1).replaceAll('""', '"')
    : cell;
}

/**
 * Where the header is and what separates fields: blank lines before it are skipped, an Excel `sep=;` line
 * names the separator; otherwise it is the one that splits the header into the most catalog columns.
 */
function preamble(text: string): {
  delimiter: string;
  quoted: boolean;
  headerLine: number;
  headerAt: number;
} {
  let at = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  let delimiter: string | null = null;
  for (;;) {
    const end = lineEnd(text, at);
    const content = text.slice(at, end.at).trim();
    const hint: RegExpExecArray | null = delimiter === null ? /^"?sep=(.)"?[,;\t]*$/i.exec(content) : null;
    if (content !== '' && hint === null) break;
    if (hint !== null) delimiter = hint[1]!;
    if (end.next >= text.length)
      return { delimiter: delimiter ?? ',', quoted: true, headerLine: line, headerAt: text.length };
    at = end.next;
    line++;
  }
  const header = text.slice(at, lineEnd(text, at).at);
  const separator = delimiter ?? guessDelimiter(header);
  const shape = exportShape(headerNames(header, separator) ?? []);
  const quoted = !(separator === '\t' && shape?.quoted === false);
  return { delimiter: separator, quoted, headerLine: line, headerAt: at };
}

function lineEnd(text: string, from: number): { at: number; next: number } {
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') return { at: i, next: i + 1 };
    if (c === '\r') return { at: i, next: text[i + 1] === '\n' ? i + 2 : i + 1 };
  }
  return { at: text.length, next: text.length };
}

function guessDelimiter(header: string): string {
  let best: string = DELIMITERS[0];
  let most = 0;
  for (const delimiter of DELIMITERS) {
    const names = headerNames(header, delimiter);
    if (names === null) continue;
    // An export's header is read by its platform's columns, all of which count.
    const known = exportShape(names) === null ? names.filter(isColumn).length : names.length;
    if (known > most) {
      best = delimiter;
      most = known;
    }
  }
  return best;
}

/** The header's column names split at `delimiter`; null when it cannot be read so. */
function headerNames(header: string, delimiter: string): string[] | null {
  try {
    const [names = []] = parseCsv(header, { delimiter, trim: true, relax_quotes: true }) as string[][];
    return names;
  } catch {
    return null;
  }
}
