/**
 * The catalog in memory, shaped for matching: every product compiled once for the engine, with its filter
 * keys precomputed, so that one recommendation is a single pass over the catalog — filter, look the score up,
 * keep the best few — with no I/O and no allocation per product. Scores are computed once per distinct
 * scoring signature, not per product (docs/data-path.md).
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
  /** One row per distinct scoring signature: the engine's score reads nothing else of a product. */
  readonly #signatures: ProductColumns;
  /** Each entry's row in #signatures. */
  readonly #signatureOf: Int32Array;

  constructor(products: readonly DerivedProduct[]) {
    const entries = products.map(toEntry);
    entries.sort((a, b) => (a.product.product_id < b.product.product_id ? -1 : 1));
    this.entries = entries;
    this.#byId = new Map(entries.map((entry) => [entry.product.product_id, entry]));
    const rows = new Map<string, number>();
    const signatures: EngineProduct[] = [];
    this.#signatureOf = Int32Array.from(entries, ({ engine }) => {
      const key = signature(engine);
      let row = rows.get(key);
      if (row === undefined) {
        row = signatures.push(engine) - 1;
        rows.set(key, row);
      }
      return row;
    });
    this.#signatures = toColumns(signatures);
  }

  /** Distinct scoring signatures: what one recommendation scores. */
  get signatureCount(): number {
    return this.#signatures.size;
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
    // Products share formulas and so scoring signatures: each signature is scored once (a few hundred
    // for the benchmark's 100 000 products), and the pass below only looks its score up.
    const scores = scoreColumns(prepareScan(concerns, skinType), this.#signatures);
    const signatureOf = this.#signatureOf;
    const keep = matcher(filter);
    const best: RankedEntry[] = [];
    let candidates = 0;
    // Entries are in product_id order, so a later entry never wins a tie: only a strictly higher score
    // enters the list, and most products are passed over without building anything.
    let floor = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < signatureOf.length; i++) {
      if (keep !== undefined && !keep(this.entries[i]!)) continue;
      candidates++;
      const rank = scores[signatureOf[i]!]!;
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

  /**
   * Up to `limit` products after product_id `after`, in product_id order, whose name, brand or ingredients
   * contain every word of `query` (both compared as filters compare: NFKC, case, spaces) and that pass
   * `filter`. Entries are in product_id order: a page starts at a binary search and stops as soon as it
   * is full, however deep it is.
   */
  search(query: string, filter: ProductFilter | undefined, after: string | undefined, limit: number) {
    const words = key(query).split(' ').filter(Boolean);
    const keep = matcher(filter) ?? (() => true);
    const found: CatalogEntry[] = [];
    for (let i = after === undefined ? 0 : this.#firstAfter(after); i < this.size; i++) {
      const entry = this.entries[i]!;
      if (!keep(entry) || !words.every((word) => entry.searchText.includes(word))) continue;
      if (found.push(entry) === limit) break;
    }
    return found;
  }

  /** The index of the first entry whose product_id sorts after `productId`. */
  #firstAfter(productId: string): number {
    let low = 0;
    let high = this.size;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.entries[mid]!.product.product_id <= productId) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}

function toEntry(product: DerivedProduct): CatalogEntry {
  return {
    product,
    engine: compileProduct(product),
    typeKey: typeKey(product.product_type),
    brandKey: key(product.brand),
    countryKey: key(product.country),
    searchText: folded([product.name, product.brand ?? '', product.ingredients ?? ''].join(' ')),
  };
}

/**
 * A filter's comparison key: the same text however the catalog or the caller encoded it (composed or
 * decomposed accents, full-width letters, case, runs of spaces).
 */
const key = (value: string | null | undefined) =>
  folded(value ?? '')
    .trim()
    .replace(/\s+/g, ' ');

/**
 * NFKC, then lower case: what filters and text search both compare. ASCII text (most of a catalog) is its
 * own NFKC and skips it: normalising every ingredient list made a 100 000-product index 248 → 446 ms to build.
 */
const folded = (text: string) => (NON_ASCII.test(text) ? text.normalize('NFKC') : text).toLowerCase();
const NON_ASCII = /[^\p{ASCII}]/u;

/** A product type's key: `Eye Care`, `eye-care` and `eye_care` are the enumeration's `eye_care`. */
const typeKey = (value: string | null | undefined) => key(value).replace(/[\s_-]+/g, '_');

/** Everything of a compiled product that its score (concern or maintenance) reads: scoreColumns and
 * maintenanceScore. A product's other fields (targets: which concerns it names) never change a score. */
function signature(engine: EngineProduct): string {
  const { evidence, flags, skinTypes, scorable, barrier, sunProtection } = engine;
  return `${evidence}:${flags}:${skinTypes}:${scorable ? 1 : 0}:${barrier}:${sunProtection ? 1 : 0}`;
}

const FREE_FROM: Readonly<Record<string, keyof DerivedProduct['attributes']>> = {
  fragrance: 'fragrance_free',
  alcohol: 'alcohol_free',
  fungal_acne_triggers: 'fungal_acne_safe',
};

/** Filters narrow the candidates and never touch a score; unknown (null) attributes never pass. */
function matcher(filter: ProductFilter | undefined): ((entry: CatalogEntry) => boolean) | undefined {
  if (!filter) return undefined;
  const type = typeKey(filter.productType);
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
