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
import { brandKey, countryKey } from './filter-keys.ts';
import { matcher, memo } from './product-filter.ts';
import { nameKinds, productKinds, readsName } from './product-kind.ts';
import { hasTerms, searchTerms, searchWords, withoutApostrophes } from './product-search.ts';
import { folded, sameProductName } from './text-key.ts';

export interface CatalogEntry {
  readonly product: DerivedProduct;
  readonly engine: EngineProduct;
  /** The spec's product types its free-text type names, or its name when the type names none
   * (product-kind.ts), a bit set of KIND_BIT. */
  readonly kinds: number;
  /** The brand and country as their filters compare them (filter-keys.ts). */
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
  /** Each entry's name without its size (sameProductName), computed when first needed: few ever are. */
  readonly #nameKeys: (string | undefined)[];

  constructor(products: readonly DerivedProduct[]) {
    // A catalog holds a few dozen distinct type strings: each is read once (-1: the type names no kind,
    // and the product's name is read instead, see readsName).
    const kinds = new Map<string | null, number>();
    const kindsOf = ({ product_type: type, name }: DerivedProduct) => {
      let found = kinds.get(type);
      if (found === undefined) {
        found = readsName(type) ? -1 : productKinds(type);
        kinds.set(type, found);
      }
      return found === -1 ? nameKinds(name) : found;
    };
    const keys = { brand: memo(brandKey), country: memo(countryKey) };
    const entries = products.map((product) => toEntry(product, kindsOf, keys));
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
    this.#nameKeys = new Array(entries.length);
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
   * product_id, each product once: the same product sold in several sizes or listed by several markets
   * (same brand, same name but for its size, same formula as far as a score can tell) fills one place, under
   * its first product_id, not all five. Also returns how many products passed the filter.
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
    /** The entry index of each of `best`. */
    const bestAt: number[] = [];
    let candidates = 0;
    // Entries are in product_id order, so a later entry never wins a tie: only a strictly higher score
    // enters the list, and most products are passed over without building anything.
    let floor = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < signatureOf.length; i++) {
      if (keep !== undefined && !keep(this.entries[i]!)) continue;
      candidates++;
      const rank = scores[signatureOf[i]!]!;
      if (best.length === limit && rank <= floor) continue;
      // Another size of a product already listed: it scores the same and its product_id sorts later.
      if (this.#listed(i, bestAt)) continue;
      let at = Math.min(best.length, limit - 1);
      while (at > 0 && rank > (best[at - 1]!.score ?? NO_SCORE)) {
        best[at] = best[at - 1]!;
        bestAt[at] = bestAt[at - 1]!;
        at--;
      }
      best[at] = { entry: this.entries[i]!, score: rank === NO_SCORE ? null : rank };
      bestAt[at] = i;
      if (best.length === limit) floor = best[limit - 1]!.score ?? NO_SCORE;
    }
    return { best, candidates };
  }

  /**
   * Up to `limit` products after product_id `after`, in product_id order, whose name, brand or ingredients
   * contain every word of `query` (both compared as filters compare, and without apostrophes: `kiehls`
   * finds `Kiehl's`, as a person types it), or list the ingredient words of it name (`vitamin c`: ascorbic
   * acid; product-search.ts), and that pass `filter`. Entries are in product_id order: a page starts at a
   * binary search and stops as soon as it is full, however deep it is.
   */
  search(query: string, filter: ProductFilter | undefined, after: string | undefined, limit: number) {
    const terms = searchTerms(searchWords(query), this.entries);
    const keep = matcher(filter) ?? (() => true);
    const found: CatalogEntry[] = [];
    for (let i = after === undefined ? 0 : this.#firstAfter(after); i < this.size; i++) {
      const entry = this.entries[i]!;
      if (!keep(entry) || !hasTerms(terms, entry, i)) continue;
      if (found.push(entry) === limit) break;
    }
    return found;
  }

  /**
   * Entry `i` is one product with an entry of `listed`, sold in several sizes or markets: the same brand, the
   * same name but for its size, and the same formula as far as a score can tell (one scoring signature).
   */
  #listed(i: number, listed: readonly number[]): boolean {
    for (const j of listed) {
      if (
        this.#signatureOf[i] === this.#signatureOf[j] &&
        this.entries[i]!.brandKey === this.entries[j]!.brandKey &&
        this.#nameKey(i) === this.#nameKey(j)
      ) {
        return true;
      }
    }
    return false;
  }

  #nameKey(i: number): string {
    let name = this.#nameKeys[i];
    if (name === undefined) {
      name = sameProductName(this.entries[i]!.product.name);
      this.#nameKeys[i] = name;
    }
    return name;
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

function toEntry(
  product: DerivedProduct,
  kindsOf: (product: DerivedProduct) => number,
  keys: { brand: (brand: string | null) => string; country: (country: string | null) => string },
): CatalogEntry {
  return {
    product,
    engine: compileProduct(product),
    kinds: kindsOf(product),
    brandKey: keys.brand(product.brand),
    countryKey: keys.country(product.country),
    searchText: withoutApostrophes(
      folded([product.name, product.brand ?? '', product.ingredients ?? ''].join(' ')),
    ),
  };
}

/** Everything of a compiled product that its score (concern or maintenance) reads: scoreColumns and
 * maintenanceScore. A product's other fields (targets: which concerns it names) never change a score. */
function signature(engine: EngineProduct): string {
  const { evidence, flags, skinTypes, scorable, barrier, sunProtection } = engine;
  return `${evidence}:${flags}:${skinTypes}:${scorable ? 1 : 0}:${barrier}:${sunProtection ? 1 : 0}`;
}
