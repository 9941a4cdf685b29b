/**
 * The catalog in PostgreSQL and its live in-memory index. Imports upsert by product_id in batches, each
 * product re-derived from its INCI list; every core replica reloads its index when the products table
 * announces a change (`catalog_changed`).
 */
import type { EntityManager } from '@mikro-orm/core';
import type { Orm } from '../core/db/orm.ts';
import type { Logger } from '../shared/logger.ts';
import type { Notifications } from '../shared/notifications.ts';
import { CatalogIndex } from './catalog-index.ts';
import { type DerivedProduct, deriveProduct, type RawProduct } from './derive.ts';
import { Product } from './product-entity.ts';

const RELOAD_DEBOUNCE_MS = 200;

/** Upserts products by product_id, each derived afresh; returns what was derived, in input order. */
export async function upsertProducts(
  em: EntityManager,
  raws: readonly RawProduct[],
): Promise<DerivedProduct[]> {
  const now = new Date();
  const derivedProducts = raws.map(deriveProduct);
  const rows = raws.map((raw, index) => {
    const derived = derivedProducts[index]!;
    return {
      productId: raw.product_id,
      name: raw.name,
      brand: raw.brand,
      productType: raw.product_type,
      country: raw.country,
      imageUrl: raw.image_url,
      productUrl: raw.product_url,
      buyUrl: raw.buy_url,
      ingredientsText: raw.ingredients,
      declaredSkinTypes: raw.skin_types ? [...raw.skin_types] : null,
      vegan: raw.vegan,
      crueltyFree: raw.cruelty_free,
      demo: raw.demo === true,
      derived,
      updatedAt: now,
    };
  });
  await em.upsertMany(Product, rows);
  return derivedProducts;
}

export async function countProducts(em: EntityManager): Promise<number> {
  return em.count(Product, {});
}

async function loadProducts(em: EntityManager): Promise<DerivedProduct[]> {
  const rows = await em
    .getConnection()
    .execute<{ derived: DerivedProduct }[]>('select derived from products');
  return rows.map((row: { derived: DerivedProduct }) => row.derived);
}

/** The index every request reads; swapped whole after a reload, so a request never sees half a catalog. */
export class LiveCatalog {
  #index = new CatalogIndex([]);
  #available = false;
  #timer: NodeJS.Timeout | undefined;
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
    return this.#available;
  }

  async start(notifications: Notifications): Promise<void> {
    notifications.on('catalog_changed', () => this.#reloadSoon());
    await this.reload().catch((err) => this.#logger.error({ err: err.message }, 'catalog load failed'));
  }

  async reload(): Promise<void> {
    const started = performance.now();
    const products = await loadProducts(this.#orm.em.fork());
    this.#index = new CatalogIndex(products);
    this.#available = true;
    this.#logger.info(
      { products: products.length, ms: Math.round(performance.now() - started) },
      'catalog loaded',
    );
  }

  stop(): void {
    clearTimeout(this.#timer);
  }

  #reloadSoon(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.reload().catch((err) => {
        this.#available = false;
        this.#logger.error({ err: err.message }, 'catalog reload failed');
      });
    }, RELOAD_DEBOUNCE_MS);
  }
}
