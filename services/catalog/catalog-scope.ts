/**
 * What a catalog holds as a whole: real products or demo ones, never both, and after a full import
 * (`--replace`) nothing the source no longer lists. Each change is one statement, so the products table's
 * trigger tells every core replica to reload (`catalog_changed`). Demo products leave in the transaction of
 * the import's first batch of real ones (product-writer.ts).
 */
import type { EntityManager } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/postgresql';

const sql = (em: EntityManager) => (em as SqlEntityManager).getConnection();

/** True when the catalog holds at least one real (non-demo) product. */
export async function holdsRealProducts(em: EntityManager): Promise<boolean> {
  const rows = await sql(em).execute<{ found: boolean }[]>(
    'select exists (select 1 from products where not demo) as found',
  );
  return rows[0]?.found === true;
}

/** Withdraws (deletes) every product whose id is not in `keep`; returns the withdrawn ids, sorted. */
export async function withdrawAbsent(em: EntityManager, keep: readonly string[]): Promise<string[]> {
  const rows = await sql(em).execute<{ product_id: string }[]>(
    // One JSON parameter: a catalog's ids are far more than a statement's parameter limit.
    `delete from products where product_id not in (select jsonb_array_elements_text(?::jsonb))
     returning product_id`,
    [JSON.stringify(keep)],
  );
  return rows.map((row) => row.product_id).sort();
}

/** Withdraws (deletes) the products of these ids the catalog holds; returns their ids, sorted. */
export async function withdrawListed(em: EntityManager, ids: readonly string[]): Promise<string[]> {
  const rows = await sql(em).execute<{ product_id: string }[]>(
    `delete from products where product_id in (select jsonb_array_elements_text(?::jsonb))
     returning product_id`,
    [JSON.stringify(ids)],
  );
  return rows.map((row) => row.product_id).sort();
}

/** How many products the catalog holds, and how many of them `keep` does not list. */
export async function countAbsent(
  em: EntityManager,
  keep: readonly string[],
): Promise<{ total: number; absent: number }> {
  const rows = await sql(em).execute<{ total: number; absent: number }[]>(
    `select count(*)::int as total,
       count(*) filter (where product_id not in (select jsonb_array_elements_text(?::jsonb)))::int as absent
     from products`,
    [JSON.stringify(keep)],
  );
  return { total: rows[0]?.total ?? 0, absent: rows[0]?.absent ?? 0 };
}
