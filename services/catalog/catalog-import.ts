/**
 * Importing a catalog file: read every record, reject what cannot be used (with its line in the file and
 * the reason), warn about records whose ingredient field is not an ingredient list (imported, with every
 * flag unknown), and upsert the rest by product_id in batches, each product derived afresh from its INCI
 * list. Importing the same file twice changes nothing. A field the file does not carry keeps its stored
 * value (catalog-stored.ts).
 *
 * Demo records never mix with real ones: a file of real products removes the demo products, demo records
 * in a file of real products are rejected, and demo records are never loaded into a catalog that holds
 * real products. A full import (`replace`) then withdraws every product the file does not list.
 */
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import type { EntityManager } from '@mikro-orm/core';
import { type PlainSql, plainSql } from '../core/db/plain-sql.ts';
import { readCsv } from './catalog-csv.ts';
import { catalogText, readJson } from './catalog-json.ts';
import type { RecordResult } from './catalog-records.ts';
import type { Field } from './catalog-schema.ts';
import { countAbsent, holdsRealProducts, withdrawAbsent, withdrawListed } from './catalog-scope.ts';
import { keepStoredFields } from './catalog-stored.ts';
import { contradictedClaims, type DerivedProduct, type RawProduct } from './derive.ts';
import { createDeriver } from './formula-memo.ts';
import { announceCatalogChange, writeProducts } from './product-writer.ts';

/** Products per statement: large enough that a round trip is a small part of it. */
const BATCH = 1000;
/** Statements in flight at once, each on its own connection: PostgreSQL's share of an import is most of
 * it (bench:import), and one backend uses one core. */
const WRITERS = 2;

export interface Rejection {
  readonly line: number;
  readonly reason: string;
}

/** A product the file says its shop does not sell now, with why (`draft (Status)`): not imported. */
export interface Skipped {
  readonly line: number;
  readonly product_id: string;
  readonly reason: string;
}

/** A record imported as it is, with something the operator should know (the line is the file's). */
export interface ImportWarning {
  readonly line: number;
  readonly product_id: string;
  readonly message: string;
}

export interface ImportReport {
  readonly imported: number;
  readonly rejected: readonly Rejection[];
  /** Products not for sale: not imported, and withdrawn if the catalog held them (notForSaleWithdrawn). */
  readonly skipped: readonly Skipped[];
  readonly notForSaleWithdrawn: readonly string[];
  readonly warnings: readonly ImportWarning[];
  /** Products a full import withdrew because the file no longer lists them. */
  readonly withdrawn: readonly string[];
  /** Why a full import withdrew nothing, when it could not tell what the file holds. */
  readonly withdrawSkipped: string | null;
  /** Demo products removed because real products were imported. */
  readonly demoRemoved: number;
}

export interface ImportOptions {
  /** A full import: products absent from the file are withdrawn. */
  readonly replace?: boolean;
  /** A full import may withdraw more than half the catalog. */
  readonly force?: boolean;
  readonly onProgress?: (done: number) => void;
  /** Called as the withdrawal starts. */
  readonly onWithdraw?: () => void;
}

/** Delimited text: CSV, and what spreadsheets save as "Text" or "Unicode text" (tab-separated). */
const DELIMITED = new Set(['.csv', '.tsv', '.tab', '.txt']);
const JSON_FILES = new Set(['.jsonl', '.ndjson', '.json']);

/** A catalog file's records; an Error when the file as a whole cannot be read (a header no field answers to…). */
export function readCatalogFile(path: string): RecordResult[] {
  const ext = extname(path).toLowerCase();
  if (!DELIMITED.has(ext) && !JSON_FILES.has(ext)) {
    throw new Error(
      `unknown catalog format ${JSON.stringify(ext)}: use .csv, .tsv or .txt (delimited text), .jsonl or .json (docs/catalog-format.md)`,
    );
  }
  const text = catalogText(readFileSync(path));
  return DELIMITED.has(ext) ? readCsv(text) : readJson(text);
}

interface Accepted {
  readonly line: number;
  product: RawProduct;
  readonly absent?: readonly Field[];
  readonly warnings?: readonly string[];
}

export async function importRecords(
  em: EntityManager,
  records: readonly RecordResult[],
  options: ImportOptions = {},
): Promise<ImportReport> {
  const rejected: Rejection[] = [];
  const skipped: Skipped[] = [];
  const firstLine = new Map<string, number>();
  const listed = new Set<string>();
  let unnamed = false;
  let accepted: Accepted[] = [];
  for (const record of records) {
    if ('rejected' in record) {
      rejected.push({ line: record.line, reason: record.rejected });
      if (record.productId === undefined) unnamed = true;
      else listed.add(record.productId);
      continue;
    }
    if ('skipped' in record) {
      skipped.push({ line: record.line, product_id: record.productId, reason: record.skipped });
      continue;
    }
    const { product, line } = record;
    listed.add(product.product_id);
    const seen = firstLine.get(product.product_id);
    if (seen !== undefined) {
      rejected.push({ line, reason: `duplicate product_id (first on line ${seen})` });
      continue;
    }
    firstLine.set(product.product_id, line);
    accepted.push({ ...record });
  }
  accepted = await keepDemoApart(em, accepted, rejected);
  rejected.sort((a, b) => a.line - b.line);

  const warnings: ImportWarning[] = [];
  const sql = await plainSql(em);
  for (const { line, product, warnings: notes = [] } of accepted) {
    for (const message of notes) warnings.push({ line, product_id: product.product_id, message });
  }
  // A field the file does not carry keeps what a product already stored holds, rather than being emptied.
  await keepStoredFields(sql, accepted);
  // The batches are quiet (product-writer.ts): cores hear of the import once, when it ends — also when it
  // fails half way, since what was written stays.
  const progress = { written: 0, demoRemoved: 0 };
  try {
    await writeAll(sql, accepted, warnings, progress, options.onProgress ?? (() => {}));
    // The file says the shop does not sell these now: a copy an earlier import stored is not recommended
    // either (unless another line of the file names it too).
    const notForSale = skipped.map((s) => s.product_id).filter((id) => id !== '' && !listed.has(id));
    const notForSaleWithdrawn = notForSale.length > 0 ? await withdrawListed(em.fork(), notForSale) : [];
    const withdrawal = options.replace
      ? await withdrawUnlisted(em, listed, accepted.length > 0, unnamed, options)
      : { withdrawn: [], withdrawSkipped: null };
    warnings.sort((a, b) => a.line - b.line);
    return {
      imported: accepted.length,
      rejected,
      skipped,
      notForSaleWithdrawn,
      warnings,
      ...withdrawal,
      demoRemoved: progress.demoRemoved,
    };
  } finally {
    if (progress.written > 0) await announceCatalogChange(sql).catch(() => {});
  }
}

/** Upserts the accepted records in batches, collecting their ingredient warnings. */
async function writeAll(
  sql: PlainSql,
  accepted: readonly Accepted[],
  warnings: ImportWarning[],
  progress: { written: number; demoRemoved: number },
  done: (written: number) => void,
): Promise<void> {
  const derive = createDeriver();
  const clients = await Promise.all(Array.from({ length: WRITERS }, () => sql.connect()));
  // While PostgreSQL writes earlier batches (on as many connections, so on as many cores), this process
  // derives the next one. Batches hold distinct product_ids, so concurrent writes never wait on each other.
  const writing: Promise<void>[] = [];
  // Real products replace the demo catalog in the first batch's transaction, and that batch commits before
  // any other: no moment, not even after a crash half way, shows demo products beside real ones.
  const real = accepted.some((record) => record.product.demo !== true);
  try {
    for (let start = 0, n = 0; start < accepted.length; start += BATCH, n++) {
      const batch = accepted.slice(start, start + BATCH).map((record) => record.product);
      const derived = batch.map(derive);
      derived.forEach((product, i) => {
        const line = accepted[start + i]!.line;
        for (const message of productWarnings(product))
          warnings.push({ line, product_id: product.product_id, message });
      });
      const slot = n % WRITERS;
      await writing[slot];
      const write = writeProducts(clients[slot]!, batch, derived, real && n === 0).then((removed) => {
        progress.demoRemoved += removed;
        progress.written += batch.length;
        done(progress.written);
      });
      write.catch(() => {}); // awaited later; a failure meanwhile is not an unhandled rejection
      writing[slot] = write;
      if (n === 0) await write;
    }
    await Promise.all(writing);
  } catch (err) {
    await Promise.allSettled(writing);
    // A client whose statement failed may be broken: the pool discards them rather than reuse them.
    for (const client of clients) client.release(err as Error);
    throw err;
  }
  for (const client of clients) client.release();
}

/** A full import's withdrawal of the products the file does not list, or why there is none. */
async function withdrawUnlisted(
  em: EntityManager,
  listed: ReadonlySet<string>,
  anyAccepted: boolean,
  unnamed: boolean,
  options: ImportOptions,
): Promise<Pick<ImportReport, 'withdrawn' | 'withdrawSkipped'>> {
  const skipped = (why: string) => ({ withdrawn: [], withdrawSkipped: why });
  if (!anyAccepted) return skipped('the file gave no product to import');
  if (unnamed) {
    return skipped('some rejected lines name no product_id, so the file cannot say which products it holds');
  }
  const { total, absent } = await countAbsent(em.fork(), [...listed]);
  if (absent * 2 > total && !options.force) {
    return skipped(
      `it would withdraw ${absent} of the ${total} products in the catalog, more than half: check the file is the whole catalog, and run the import again with --force to withdraw them`,
    );
  }
  options.onWithdraw?.();
  return { withdrawn: await withdrawAbsent(em.fork(), [...listed]), withdrawSkipped: null };
}

/** Rejects the demo records that would mix with real products. */
async function keepDemoApart(
  em: EntityManager,
  accepted: readonly Accepted[],
  rejected: Rejection[],
): Promise<Accepted[]> {
  const demo = accepted.filter((record) => record.product.demo === true);
  if (demo.length === 0) return [...accepted];
  const realInFile = demo.length < accepted.length;
  const reason = realInFile
    ? 'demo record in a file of real products: demo data is never mixed with real products'
    : (await holdsRealProducts(em.fork()))
      ? 'the catalog holds real products: demo records are never loaded into it'
      : null;
  if (reason === null) return [...accepted];
  for (const record of demo) rejected.push({ line: record.line, reason });
  return accepted.filter((record) => record.product.demo !== true);
}

/** What the operator should know of a derived product: its ingredient field, and claims its list contradicts. */
function productWarnings(product: DerivedProduct): string[] {
  const claims = contradictedClaims(product);
  if (product.ingredients_status === 'not_a_list') {
    return [
      `ingredients are not an ingredient list (${product.ingredients_note}): imported with every flag and the score unknown`,
      ...claims,
    ];
  }
  return product.ingredients_note === null ? claims : [`ingredients: ${product.ingredients_note}`, ...claims];
}
