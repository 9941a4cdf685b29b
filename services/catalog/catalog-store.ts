/**
 * The catalog in PostgreSQL and its live in-memory index. Imports upsert by product_id in batches, each
 * product re-derived from its INCI list; every core replica reloads its index when the products table
 * announces a change (`catalog_changed`).
 */
import type { EntityManager } from '@mikro-orm/core';
import type { Orm } from '../core/db/orm.ts';
import { plainSql } from '../core/db/plain-sql.ts';
import type { Logger } from '../shared/logger.ts';
import type { Notifications } from '../shared/notifications.ts';
import { CatalogIndex } from './catalog-index.ts';
import { type DerivedProduct, deriveProduct, type RawProduct } from './derive.ts';
import { Product } from './product-entity.ts';
import { writeProducts } from './product-writer.ts';

const RELOAD_DEBOUNCE_MS = 200;

/** Upserts products by product_id, each derived afresh; returns what was derived, in input order. */
export async function upsertProducts(
  em: EntityManager,
  raws: readonly RawProduct[],
): Promise<DerivedProduct[]> {
  const derived = raws.map(deriveProduct);
  const client = await (await plainSql(em)).connect();
  try {
    await writeProducts(client, raws, derived);
  } catch (err) {
    client.release(err as Error);
    throw err;
  }
  client.release();
  return derived;
}

export async function countProducts(em: EntityManager): Promise<number> {
  return em.count(Product, {});
}

/**
 * The whole catalog in one read: seconds for 100 000 products, longer for more on a loaded machine, so
 * the serving connections' statement timeouts (orm.ts) are lifted for it (an hour instead).
 */
const LOAD_TIMEOUT_MS = 60 * 60 * 1000;

async function loadProducts(em: EntityManager): Promise<DerivedProduct[]> {
  const client = await (await plainSql(em)).connect();
  try {
    await client.query('begin read only');
    await client.query(`set local statement_timeout = ${LOAD_TIMEOUT_MS}`);
    const { rows } = await client.query<{ derived: DerivedProduct }>({
      text: 'select derived from products',
      query_timeout: LOAD_TIMEOUT_MS,
    } as { text: string });
    await client.query('commit');
    client.release();
    return rows.map((row) => row.derived);
  } catch (err) {
    client.release(err as Error);
    throw err;
  }
}

/** Whether the in-memory catalog can answer: not yet loaded, loaded, or failed (and being retried). */
export type CatalogLoadState = 'loading' | 'loaded' | 'unavailable';

/** First retry after a failed load, doubled after each failure up to the cap. */
const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 60_000;

/** The index every request reads; swapped whole after a reload, so a request never sees half a catalog. */
export class LiveCatalog {
  #index = new CatalogIndex([]);
  #state: CatalogLoadState = 'loading';
  #timer: NodeJS.Timeout | undefined;
  #retryMs = RETRY_FIRST_MS;
  #stopped = false;
  readonly #orm: Orm;
  readonly #logger: Logger;

  constructor(orm: Orm, logger: Logger) {
    this.#orm = orm;
    this.#logger = logger;
  }

  get index(): CatalogIndex {
    return this.#index;
  }

  /** False until the first load succeeds, and while the database cannot be read. */
  get available(): boolean {
    return this.#state === 'loaded';
  }

  get state(): CatalogLoadState {
    return this.#state;
  }

  async start(notifications: Notifications): Promise<void> {
    notifications.on('catalog_changed', () => this.#reloadSoon(RELOAD_DEBOUNCE_MS));
    await this.#load();
  }

  async reload(): Promise<void> {
    const started = performance.now();
    const products = await loadProducts(this.#orm.em.fork());
    this.#index = new CatalogIndex(products);
    this.#state = 'loaded';
    this.#retryMs = RETRY_FIRST_MS;
    this.#logger.info(
      { products: products.length, ms: Math.round(performance.now() - started) },
      'catalog loaded',
    );
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  /** One load; a failure leaves the catalog unavailable and schedules the next try, each later than the last. */
  async #load(): Promise<void> {
    try {
      await this.reload();
    } catch (err) {
      this.#state = 'unavailable';
      const retryMs = this.#retryMs;
      this.#retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
      this.#logger.error({ err: (err as Error).message, retry_in_ms: retryMs }, 'catalog load failed');
      this.#reloadSoon(retryMs);
    }
  }

  #reloadSoon(delayMs: number): void {
    if (this.#stopped) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#load(), delayMs);
  }
}
