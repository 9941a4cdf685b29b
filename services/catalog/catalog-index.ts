/**
 * The catalog in memory, shaped for matching: every product compiled once for the engine, with its filter
 * keys precomputed, so that one recommendation is a single pass over the catalog — filter, score, keep the
 * best few — with no I/O and no allocation per product. 100 000 products take a few milliseconds.
 */
import type { ProductFilter } from '../../gen/skinmatch/v1/catalog_types_pb.ts';
import {
  compileProduct,
  type EngineProduct,
  NO_SCORE,
  type ProductColumns,
  prepareScan,
  type SkinType,
  scoreColumns,
  toColumns,
} from '../match/engine/index.ts';
import type { Concern } from '../shared/measures.ts';
import type { DerivedProduct } from './derive.ts';

export interface CatalogEntry {
  readonly product: DerivedProduct;
  readonly engine: EngineProduct;
  readonly typeKey: string;
  readonly brandKey: string;
  readonly countryKey: string;
  readonly searchText: string;
}

export interface RankedEntry {
  readonly entry: CatalogEntry;
  readonly score: number | null;
}

export class CatalogIndex {
  readonly entries: readonly CatalogEntry[];
  readonly #byId: Map<string, CatalogEntry>;
  readonly #columns: ProductColumns;

  constructor(products: readonly DerivedProduct[]) {
    const entries = products.map(toEntry);
    entries.sort((a, b) => (a.product.product_id < b.product.product_id ? -1 : 1));
    this.entries = entries;
    this.#byId = new Map(entries.map((entry) => [entry.product.product_id, entry]));
    this.#columns = toColumns(entries.map((entry) => entry.engine));
  }

  get size(): number {
    return this.entries.length;
  }

  get(productId: string): CatalogEntry | undefined {
    return this.#byId.get(productId);
  }

  /**
   * The best `limit` candidates for a scan's concerns: highest score first, unscorable last, ties by
   * product_id. Also returns how many products passed the filter.
   */
  recommend(
    concerns: readonly Concern[],
    skinType: SkinType | null,
    filter: ProductFilter | undefined,
    limit: number,
  ): { best: RankedEntry[]; candidates: number } {
    const scores = scoreColumns(prepareScan(concerns, skinType), this.#columns);
    const keep = matcher(filter);
    const best: RankedEntry[] = [];
    let candidates = 0;
    // Entries are in product_id order, so a later entry never wins a tie: only a strictly higher score
    // enters the list, and most products are passed over without building anything.
    let floor = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < scores.length; i++) {
      if (keep !== undefined && !keep(this.entries[i]!)) continue;
      candidates++;
      const rank = scores[i]!;
      if (best.length === limit && rank <= floor) continue;
      let at = Math.min(best.length, limit - 1);
      while (at > 0 && rank > (best[at - 1]!.score ?? NO_SCORE)) {
        best[at] = best[at - 1]!;
        at--;
      }
      best[at] = { entry: this.entries[i]!, score: rank === NO_SCORE ? null : rank };
      if (best.length === limit) floor = best[limit - 1]!.score ?? NO_SCORE;
    }
    return { best, candidates };
  }

  /** Products whose name, brand or ingredients contain every word of `query`, that pass `filter`. */
  search(query: string, filter: ProductFilter | undefined): CatalogEntry[] {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    const keep = matcher(filter) ?? (() => true);
    return this.entries.filter(
      (entry) => keep(entry) && words.every((word) => entry.searchText.includes(word)),
    );
  }
}

function toEntry(product: DerivedProduct): CatalogEntry {
  return {
    product,
    engine: compileProduct(product),
    typeKey: key(product.product_type),
    brandKey: key(product.brand),
    countryKey: key(product.country),
    searchText: [product.name, product.brand ?? '', product.ingredients ?? ''].join(' ').toLowerCase(),
  };
}

const key = (value: string | null | undefined) => (value ?? '').trim().toLowerCase();

const FREE_FROM: Readonly<Record<string, keyof DerivedProduct['attributes']>> = {
  fragrance: 'fragrance_free',
  alcohol: 'alcohol_free',
  fungal_acne_triggers: 'fungal_acne_safe',
};

/** Filters narrow the candidates and never touch a score; unknown (null) attributes never pass. */
function matcher(filter: ProductFilter | undefined): ((entry: CatalogEntry) => boolean) | undefined {
  if (!filter) return undefined;
  const type = key(filter.productType);
  const brand = key(filter.brand);
  const country = key(filter.country);
  const skinType = filter.skinType;
  const freeFrom = filter.freeFrom.map((item) => FREE_FROM[item]).filter((name) => name !== undefined);
  return (entry) => {
    const { attributes, skin_types } = entry.product;
    if (type && entry.typeKey !== type) return false;
    if (brand && entry.brandKey !== brand) return false;
    if (country && entry.countryKey !== country) return false;
    if (skinType && !skin_types.includes(skinType as SkinType)) return false;
    if (filter.vegan !== undefined && attributes.vegan !== filter.vegan) return false;
    if (filter.crueltyFree !== undefined && attributes.cruelty_free !== filter.crueltyFree) return false;
    for (const attribute of freeFrom) if (attributes[attribute] !== true) return false;
    return true;
  };
}
