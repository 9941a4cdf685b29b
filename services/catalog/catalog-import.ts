/**
 * Importing a catalog file: read every record, reject what cannot be used (with the line and the reason),
 * and upsert the rest by product_id in batches, each product derived afresh from its INCI list. Importing
 * the same file twice changes nothing.
 */
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import type { EntityManager } from '@mikro-orm/core';
import { type RecordResult, readCsv, readJsonLines } from './catalog-records.ts';
import { upsertProducts } from './catalog-store.ts';
import type { RawProduct } from './derive.ts';

const BATCH = 500;

export interface Rejection {
  readonly line: number;
  readonly reason: string;
}

export interface ImportReport {
  readonly imported: number;
  readonly rejected: readonly Rejection[];
}

export function readCatalogFile(path: string): RecordResult[] {
  const text = readFileSync(path, 'utf8');
  const ext = extname(path).toLowerCase();
  if (ext === '.csv') return readCsv(text);
  if (ext === '.jsonl' || ext === '.ndjson' || ext === '.json') return readJsonLines(text);
  throw new Error(`unknown catalog format "${ext}": use .csv or .jsonl (docs/catalog-format.md)`);
}

export async function importRecords(
  em: EntityManager,
  records: readonly RecordResult[],
  onProgress: (done: number) => void = () => {},
): Promise<ImportReport> {
  const rejected: Rejection[] = [];
  const firstLine = new Map<string, number>();
  const products: RawProduct[] = [];
  for (const record of records) {
    if ('rejected' in record) {
      rejected.push({ line: record.line, reason: record.rejected });
      continue;
    }
    const seen = firstLine.get(record.product.product_id);
    if (seen !== undefined) {
      rejected.push({ line: record.line, reason: `duplicate product_id (first on line ${seen})` });
      continue;
    }
    firstLine.set(record.product.product_id, record.line);
    products.push(record.product);
  }
  for (let start = 0; start < products.length; start += BATCH) {
    await upsertProducts(em.fork(), products.slice(start, start + BATCH));
    onProgress(Math.min(products.length, start + BATCH));
  }
  return { imported: products.length, rejected };
}
