/**
 * Writing derived products by product_id, the import's hot path. Each batch travels as PostgreSQL `COPY`
 * text into a temporary staging table of the session, then one `insert … select … on conflict do update`
 * moves it into `products`, in one transaction: COPY's text format costs PostgreSQL less to read than a
 * statement parameter (no JSON document around the rows to parse), and the `derived` column, stored as
 * `json` (migration 0013), is only validated, never built into a binary tree. docs/data-path.md has the
 * numbers.
 *
 * A batch does not announce itself (`skinmatch.catalog_quiet`, migration 0019): its caller announces the
 * change once it has written everything (`announceCatalogChange`), so cores reload once per import, not
 * once per batch.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Pool, PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { DerivedProduct, RawProduct } from './derive.ts';

/** The products table's columns an import writes, with their types (updated_at is the statement's). */
const COLUMNS: readonly (readonly [string, string])[] = [
  ['product_id', 'text'],
  ['name', 'text'],
  ['brand', 'text'],
  ['product_type', 'text'],
  ['country', 'text'],
  ['image_url', 'text'],
  ['product_url', 'text'],
  ['buy_url', 'text'],
  ['ingredients_text', 'text'],
  ['declared_skin_types', 'jsonb'],
  ['vegan', 'boolean'],
  ['cruelty_free', 'boolean'],
  ['demo', 'boolean'],
  ['derived', 'json'],
];
const names = COLUMNS.map(([name]) => name);

/** Lives as long as the session; emptied at the end of every batch's transaction. */
const STAGING = `create temporary table if not exists product_rows
  (${COLUMNS.map((column) => column.join(' ')).join(', ')}) on commit delete rows`;
const COPY = `copy product_rows (${names.join(', ')}) from stdin`;
const UPSERT = `insert into products (${names.join(', ')}, updated_at)
  select ${names.join(', ')}, $1::timestamptz from product_rows order by product_id
  on conflict (product_id) do update set
  ${[...names.slice(1), 'updated_at'].map((name) => `${name} = excluded.${name}`).join(', ')}`;

// The rows are locked in product_id order, as every other import's are: two imports writing the same
// products at once (files in different orders, or a full import beside an update) then wait on each other
// instead of deadlocking, and neither fails half-written.

/** Sessions that already hold the staging table. */
const staged = new WeakSet<PoolClient>();

/**
 * Upserts one batch of derived products (distinct product_ids) in one transaction on `client`; with
 * `removeDemo`, the demo products go in the same transaction, and how many there were is the answer.
 */
export async function writeProducts(
  client: PoolClient,
  raws: readonly RawProduct[],
  derived: readonly DerivedProduct[],
  removeDemo = false,
): Promise<number> {
  if (!staged.has(client)) {
    await client.query(STAGING);
    staged.add(client);
  }
  await client.query('begin');
  try {
    // An import can be re-run, so its commits need not wait for the WAL to reach the disk; `local`: the
    // pooled session goes back to the pool as it was.
    await client.query('set local synchronous_commit = off');
    await client.query('set local skinmatch.catalog_quiet = on');
    await pipeline(Readable.from(copyText(raws, derived)), client.query(copyFrom(COPY)));
    await client.query({ name: 'upsert_product_rows', text: UPSERT, values: [new Date()] });
    const removed = removeDemo ? (await client.query('delete from products where demo')).rowCount : 0;
    await client.query('commit');
    return removed ?? 0;
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  }
}

/** Tells every core replica that the catalog changed, as the products table's trigger does for other writes. */
export async function announceCatalogChange(sql: Pool | PoolClient): Promise<void> {
  await sql.query(`select pg_notify('catalog_changed', '')`);
}

/** The batch in COPY's text format, in a few large chunks. */
function* copyText(raws: readonly RawProduct[], derived: readonly DerivedProduct[]): Generator<string> {
  let chunk = '';
  for (let i = 0; i < raws.length; i++) {
    const raw = raws[i]!;
    chunk += `${field(raw.product_id)}\t${field(raw.name)}\t${field(raw.brand)}\t${field(raw.product_type)}\t${field(raw.country)}\t${field(raw.image_url)}\t${field(raw.product_url)}\t${field(raw.buy_url)}\t${field(raw.ingredients)}\t${json(raw.skin_types)}\t${flag(raw.vegan)}\t${flag(raw.cruelty_free)}\t${raw.demo === true ? 't' : 'f'}\t${field(JSON.stringify(derived[i]))}\n`;
    if (chunk.length >= 1 << 16) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk.length > 0) yield chunk;
}

const SPECIAL = /[\\\t\n\r]/;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** A text value as COPY reads it: backslash, tab, newline and carriage return escaped; null is `\N`. */
export function field(value: string | null): string {
  if (value === null) return '\\N';
  return SPECIAL.test(value) ? value.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]!) : value;
}

const json = (value: unknown) =>
  value === null || value === undefined ? '\\N' : field(JSON.stringify(value));
const flag = (value: boolean | null) => (value === null ? '\\N' : value ? 't' : 'f');
