/**
 * The catalog in PostgreSQL and its live in-memory index. Imports upsert by product_id in batches, each
 * product re-derived from its INCI list; every core replica reloads its index when a change is announced
 * (`catalog_changed`: by the products table's trigger, or once by an import whose batches are quiet).
 * An announcement can be missed — sent while this core's listening connection was down, or never sent by
 * an import killed outright — so a core also reloads when it listens again, and looks every
 * `CATALOG_CHECK_MS` at PostgreSQL's count of the rows written to products since its last load. Products
 * stored with an older knowledge base are derived afresh as they load (stale-derivation.ts).
 */
import type { EntityManager } from '@mikro-orm/core';
import type { Pool, PoolClient } from 'pg';
import type { Orm } from '../core/db/orm.ts';
import { plainSql } from '../core/db/plain-sql.ts';
import type { Logger } from '../shared/logger.ts';
import type { Notifications } from '../shared/notifications.ts';
import { CatalogIndex } from './catalog-index.ts';
import { type DerivedProduct, deriveProduct, type RawProduct } from './derive.ts';
import { KB_VERSION } from './knowledge/knowledge.ts';
import { Product } from './product-entity.ts';
import { announceCatalogChange, writeProducts } from './product-writer.ts';
import { currentDerivation } from './stale-derivation.ts';

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
    await announceCatalogChange(client);
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

/**
 * How often a core asks whether products were written since its load without a word: a missed
 * `catalog_changed` is served for at most this long (plus PostgreSQL's flush of its counters, about a second).
 */
export const CATALOG_CHECK_MS = 30_000;

/**
 * Rows ever inserted, updated or deleted in products (PostgreSQL's cumulative statistics: a read of one
 * row, whatever the catalog's size). Counted once a transaction ends, so a load that reads it first sees
 * at least what it counts; rolled-back writes count too (a load too many, harmless). Null when the server
 * keeps no counts (`track_counts` off): then only announcements and reconnects reload.
 */
const WRITES = `select (n_tup_ins + n_tup_upd + n_tup_del)::text as writes from pg_stat_user_tables
  where relid = 'products'::regclass`;

async function productWrites(sql: Pool | PoolClient): Promise<string | null> {
  const { rows } = await sql.query<{ writes: string | null }>(WRITES);
  return rows[0]?.writes ?? null;
}

async function loadProducts(
  em: EntityManager,
): Promise<{ products: DerivedProduct[]; writes: string | null }> {
  const client = await (await plainSql(em)).connect();
  try {
    const writes = await productWrites(client);
    await client.query('begin read only');
    await client.query(`set local statement_timeout = ${LOAD_TIMEOUT_MS}`);
    const { rows } = await client.query<{ derived: DerivedProduct }>({
      text: 'select derived from products',
      query_timeout: LOAD_TIMEOUT_MS,
    } as { text: string });
    await client.query('commit');
    client.release();
    return { products: rows.map((row) => row.derived), writes };
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

/**
 * The index every request reads; swapped whole after a reload, so a request never sees half a catalog.
 *
 * Loads are single-flight: one at a time, on one connection of the pool. A change announced while a load
 * runs asks for exactly one more after it (any number of changes meanwhile share it), so a load that read
 * an older catalog never replaces one that read a newer: several loads at once, each started by an
 * import's batch, once held most of the pool and gigabytes, and the slowest, oldest one finished last. A
 * failed load keeps the last loaded catalog serving (logged as stale) and is retried with backoff; only a
 * core that never loaded one has its catalog `unavailable`.
 */
export class LiveCatalog {
  #index = new CatalogIndex([]);
  #state: CatalogLoadState = 'loading';
  #timer: NodeJS.Timeout | undefined;
  #retryMs = RETRY_FIRST_MS;
  #started = false;
  #stopped = false;
  /** The load running now, and the one asked for while it runs. */
  #running: Promise<void> | undefined;
  #queued: Promise<void> | undefined;
  #loadedAt: Date | undefined;
  /** Products' write count as the last load began (productWrites). */
  #loadedWrites: string | null = null;
  #check: NodeJS.Timeout | undefined;
  readonly #orm: Orm;
  readonly #logger: Logger;
  readonly #checkMs: number;

  constructor(orm: Orm, logger: Logger, checkMs = CATALOG_CHECK_MS) {
    this.#orm = orm;
    this.#logger = logger;
    this.#checkMs = checkMs;
  }

  get index(): CatalogIndex {
    return this.#index;
  }

  /** False until the first load succeeds. */
  get available(): boolean {
    return this.#state === 'loaded';
  }

  get state(): CatalogLoadState {
    return this.#state;
  }

  async start(notifications: Notifications): Promise<void> {
    this.#started = true;
    notifications.on('catalog_changed', () => this.#reloadSoon(RELOAD_DEBOUNCE_MS));
    notifications.onListening(() => {
      this.#logger.info('listening again: the catalog reloads, in case a change was announced meanwhile');
      this.#reloadSoon(RELOAD_DEBOUNCE_MS);
    });
    await this.reload().catch(() => {});
    if (this.#stopped) return;
    this.#check = setInterval(() => void this.#checkWrites(), this.#checkMs);
    this.#check.unref();
  }

  /**
   * Resolves once a load that began after this call has finished (rejects if it failed): the one running
   * now if none, else the one queued behind it.
   */
  reload(): Promise<void> {
    if (this.#running === undefined) return this.#begin();
    this.#queued ??= this.#running
      .catch(() => {})
      .then(() => {
        this.#queued = undefined;
        return this.#begin();
      });
    return this.#queued;
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    clearInterval(this.#check);
  }

  /** Reloads when products were written since the last load began and no load is under way or due. */
  async #checkWrites(): Promise<void> {
    if (this.#state !== 'loaded' || this.#running || this.#queued || this.#stopped) return;
    const writes = await productWrites(await plainSql(this.#orm)).catch(() => null);
    if (writes === null || writes === this.#loadedWrites || this.#running || this.#stopped) return;
    this.#logger.info('products were written without an announcement: the catalog reloads');
    await this.reload().catch(() => {});
  }

  #begin(): Promise<void> {
    const running = this.#load().finally(() => {
      this.#running = undefined;
    });
    this.#running = running;
    return running;
  }

  /** One load; a failure keeps what is served and schedules the next try, each later than the last. */
  async #load(): Promise<void> {
    const started = performance.now();
    try {
      const loaded = await loadProducts(this.#orm.em.fork());
      const { products, stale } = await currentDerivation(loaded.products);
      const writes = loaded.writes;
      this.#index = new CatalogIndex(products);
      this.#loadedWrites = writes;
      this.#state = 'loaded';
      this.#loadedAt = new Date();
      this.#retryMs = RETRY_FIRST_MS;
      this.#logger.info(
        { products: products.length, ms: Math.round(performance.now() - started) },
        'catalog loaded',
      );
      if (Object.keys(stale).length > 0) {
        this.#logger.warn(
          { stale_products: stale, kb_version: KB_VERSION },
          'products stored with an older knowledge base were derived afresh for serving: import the catalog again to store them so',
        );
      }
    } catch (err) {
      const retryMs = this.#retryMs;
      this.#retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
      const serving =
        this.#loadedAt === undefined
          ? {}
          : { stale: true, serving_products: this.#index.size, loaded_at: this.#loadedAt.toISOString() };
      if (this.#loadedAt === undefined) this.#state = 'unavailable';
      this.#logger.error(
        { err: (err as Error).message, retry_in_ms: retryMs, ...serving },
        'catalog load failed',
      );
      if (this.#started) this.#reloadSoon(retryMs);
      throw err;
    }
  }

  #reloadSoon(delayMs: number): void {
    if (this.#stopped) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.reload().catch(() => {}), delayMs);
  }
}
