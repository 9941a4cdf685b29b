/**
 * A file that leaves a column out (a shop's export without `country`, a JSON record without
 * `ingredients`) says nothing about that field: a product already stored keeps what it holds there, and
 * is derived afresh with it. A new product has the field empty, as it would with an empty cell.
 */
import type { PlainSql } from '../core/db/plain-sql.ts';
import type { Field } from './catalog-schema.ts';
import type { RawProduct } from './derive.ts';

/** The stored column of each field a file may leave out. */
const COLUMN: Readonly<Record<string, string>> = {
  brand: 'brand',
  product_type: 'product_type',
  country: 'country',
  image_url: 'image_url',
  product_url: 'product_url',
  buy_url: 'buy_url',
  ingredients: 'ingredients_text',
  skin_types: 'declared_skin_types',
  vegan: 'vegan',
  cruelty_free: 'cruelty_free',
};

/** Ids per lookup. */
const CHUNK = 5000;

interface Partial {
  product: RawProduct;
  readonly absent?: readonly Field[];
}

/** Fills each record's absent fields from the product stored under its id, when there is one. */
export async function keepStoredFields(sql: PlainSql, records: Partial[]): Promise<void> {
  const partial = records.filter((record) => record.absent !== undefined && record.absent.length > 0);
  const select = Object.entries(COLUMN)
    .map(([field, column]) => `${column} as "${field}"`)
    .join(', ');
  for (let start = 0; start < partial.length; start += CHUNK) {
    const chunk = partial.slice(start, start + CHUNK);
    const { rows } = await sql.query<Record<string, unknown>>(
      `select product_id, ${select} from products where product_id = any($1::text[])`,
      [chunk.map((record) => record.product.product_id)],
    );
    const stored = new Map(rows.map((row) => [row.product_id as string, row]));
    for (const record of chunk) {
      const row = stored.get(record.product.product_id);
      if (row === undefined) continue;
      const kept: Record<string, unknown> = {};
      for (const field of record.absent!) if (field in COLUMN) kept[field] = row[field] ?? null;
      record.product = { ...record.product, ...kept };
    }
  }
}
