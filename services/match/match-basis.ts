/**
 * `match_basis`: what the scores were computed against (the scan's concerns and their severities, or the
 * maintenance match, the engine and knowledge-base versions), which filters narrowed the candidates, and,
 * when no product is returned while the allowance is still there, why: which filter alone leaves nothing
 * (with values the catalog holds for a brand or a country), or that the filters together do, or that no
 * product left has a positive score; and that nothing was used, so the call can be repeated with other
 * filters. One string, as the spec's schema has it.
 */
import type { ProductFilter } from '../../gen/skinmatch/v1/catalog_types_pb.ts';
import type { CatalogIndex } from '../catalog/catalog-index.ts';
import { brandKey, countryKey } from '../catalog/filter-keys.ts';
import { KB_VERSION } from '../catalog/knowledge/knowledge.ts';
import {
  appliedFields,
  type Filterable,
  type FilterField,
  matcher,
  only,
} from '../catalog/product-filter.ts';
import type { Concern, Measure } from '../shared/measures.ts';
import { quote } from '../shared/text.ts';
import { ENGINE_VERSION, type SkinType } from './engine/index.ts';

/** Values of a brand or a country named when that filter alone leaves nothing. */
const HELD_SHOWN = 6;

export function matchBasis(
  concerns: readonly Concern[],
  skinType: SkinType | null,
  filter: ProductFilter | undefined,
): string {
  return `${scoredAgainst(concerns, skinType)} ${filtersApplied(filter)}`;
}

export function scoredAgainst(concerns: readonly Concern[], skinType: SkinType | null): string {
  const engine = `skinmatch matching engine ${ENGINE_VERSION}, ingredient knowledge ${KB_VERSION}`;
  if (concerns.length === 0) {
    const fitted = skinType === null ? '' : `, fitted to the stated ${skinType} skin type`;
    return (
      'The scan shows no concern, so products are scored for maintenance: gentle formulas (no fragrance, ' +
      'no drying alcohol), barrier support (ceramides, humectants, soothing agents) and sun protection' +
      `${fitted}; by the ${engine}.`
    );
  }
  const list = concerns.map((c) => `${label(c.name)} (severity ${c.severity.toFixed(2)})`).join(', ');
  return `Scored against the scan's concerns, weighted by severity: ${list}; by the ${engine}.`;
}

const label = (measure: Measure) => measure.replaceAll('_', ' ');

/** The filters that narrowed the candidates, as the tool's arguments name them. */
function filtersApplied(filter: ProductFilter | undefined): string {
  const fields = appliedFields(filter);
  if (!filter || fields.length === 0) return 'No filter was applied.';
  return `Filters applied: ${fields.map((field) => describe(filter, field)).join('; ')}.`;
}

function describe(filter: ProductFilter, field: FilterField): string {
  switch (field) {
    case 'productType':
      return `product_type ${filter.productType}`;
    case 'skinType':
      return `skin_type ${filter.skinType}`;
    case 'freeFrom':
      return `free_from ${filter.freeFrom.join(', ')}`;
    case 'vegan':
      return 'vegan';
    case 'crueltyFree':
      return 'cruelty_free';
    case 'brand':
      return `brand ${quote(filter.brand)}`;
    case 'country': {
      const code = countryKey(filter.country);
      return `country ${quote(filter.country)}${/^[A-Z]{2}$/.test(code) ? ` (ISO code ${code})` : ''}`;
    }
  }
}

/**
 * Why the filters left no candidate: each filter that alone leaves none, or, when none does alone, the
 * filters together; then that nothing was used and the call may be repeated with other filters.
 */
export function noCandidate(index: CatalogIndex, filter: ProductFilter | undefined): string {
  const fields = filter ? appliedFields(filter) : [];
  const emptying = filter ? fields.filter((field) => count(index, only(filter, [field])) === 0) : [];
  const reasons =
    filter && emptying.length > 0
      ? emptying.map((field) => leavesNothing(index, filter, field))
      : ['Each filter alone leaves products, but together they leave none.'];
  return `No product passes the filters. ${reasons.join(' ')} ${NOTHING_USED}`;
}

/** Why products passed the filters and none is returned: none has a positive score. */
export function noMatch(candidates: number, maintenance: boolean, filter: ProductFilter | undefined): string {
  const filtered = appliedFields(filter).length > 0;
  const which = filtered
    ? candidates === 1
      ? 'The one product that passes the filters is not a match: it scores'
      : `None of the ${candidates} products that pass the filters is a match: each scores`
    : candidates === 1
      ? "The catalog's one product is not a match: it scores"
      : `None of the catalog's ${candidates} products is a match: each scores`;
  const zero = maintenance
    ? '0 for maintenance (fragrance and drying alcohol, no barrier support, no sun protection)'
    : "0 (none of its listed ingredients addresses the scan's concerns)";
  const nothing = filtered ? NOTHING_USED : "Nothing was used from this scan's allowance.";
  return `${which} ${zero} or has no score (its ingredient list is missing or not a list). ${nothing}`;
}

/**
 * Said by recommend_products once the scan's match is used: it answers no products, but the ones it gave
 * are not lost with an answer that never reached the agent (a cancelled call, a dropped connection, a new
 * conversation): get_skin_scan shows them again.
 */
export const MATCH_USED =
  "This scan's one match is already used, so no products are returned now. The products it returned are " +
  'not lost: get_skin_scan shows them again for this scan, in used_match, with when the match was used. ' +
  'Show the person those rather than telling them there are none; do not start another scan to get more.';

export const NOTHING_USED =
  "Nothing was used from this scan's allowance: call recommend_products again with other or fewer filters.";

function leavesNothing(index: CatalogIndex, filter: ProductFilter, field: FilterField): string {
  switch (field) {
    case 'productType':
      return `The catalog has no product of type ${filter.productType}.`;
    case 'skinType':
      return `The catalog has no product declared suitable for ${filter.skinType} skin.`;
    case 'freeFrom':
      return `The catalog has no product known to be free of each of ${filter.freeFrom.join(', ')}.`;
    case 'vegan':
      return 'The catalog has no product known to be vegan.';
    case 'crueltyFree':
      return 'The catalog has no product known to be cruelty-free.';
    case 'brand':
      return `No product is of brand ${quote(filter.brand)}; ${held(index, 'brand', 'brands', filter.brand)}.`;
    case 'country':
      return `No product is from country ${quote(filter.country)}; ${held(index, 'country', 'countries', filter.country)}.`;
  }
}

function count(index: CatalogIndex, filter: ProductFilter): number {
  const keep = matcher(filter);
  if (keep === undefined) return index.size;
  let n = 0;
  for (const entry of index.entries) if (keep(entry)) n++;
  return n;
}

/**
 * The values the catalog holds for a brand or a country, one spelling of each (the most frequent: `KR`,
 * `South Korea` and `Korea` are one country): those sharing a word with the value asked first (`Verdant
 * Valley` shows `Verdant & Vale`), then most products first; a few of them, and how many in all.
 */
function held(index: CatalogIndex, field: 'brand' | 'country', plural: string, asked: string): string {
  const tally = heldValues(index, field);
  if (tally.length === 0) return `the catalog names no ${field} at all`;
  const words = new Set(significant(asked));
  const near = tally.filter((value) => significant(value).some((word) => words.has(word)));
  const ranked = [...near, ...tally.filter((value) => !near.includes(value))];
  const shown = ranked.slice(0, HELD_SHOWN).map(quote).join(', ');
  return `the catalog's ${plural} include ${shown}${tally.length > HELD_SHOWN ? ` (${tally.length} in all)` : ''}`;
}

/** The words of a value that tell it apart: `and`, `the` and words of one or two letters do not. */
const significant = (value: string) =>
  brandKey(value)
    .split(' ')
    .filter((word) => word.length > 2 && word !== 'and' && word !== 'the');

const HELD = new WeakMap<CatalogIndex, Partial<Record<'brand' | 'country', string[]>>>();

/** Distinct values of an index, counted once per index (only an empty answer asks). */
function heldValues(index: CatalogIndex, field: 'brand' | 'country'): string[] {
  const known = HELD.get(index) ?? {};
  const found = known[field];
  if (found !== undefined) return found;
  const keyOf = (entry: Filterable) => (field === 'brand' ? entry.brandKey : entry.countryKey);
  /** key -> (spelling -> products) */
  const byKey = new Map<string, Map<string, number>>();
  for (const entry of index.entries) {
    const value = entry.product[field];
    if (value === null || keyOf(entry) === '') continue;
    const spellings = byKey.get(keyOf(entry)) ?? new Map<string, number>();
    byKey.set(keyOf(entry), spellings.set(value, (spellings.get(value) ?? 0) + 1));
  }
  const values = [...byKey.values()].map((spellings) => {
    const ranked = [...spellings].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    return { value: ranked[0]![0], products: ranked.reduce((sum, [, n]) => sum + n, 0) };
  });
  values.sort((a, b) => b.products - a.products || (a.value < b.value ? -1 : 1));
  const list = values.map(({ value }) => value);
  HELD.set(index, { ...known, [field]: list });
  return list;
}
