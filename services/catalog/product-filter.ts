/**
 * The product filters of recommend_products and search_products, over the catalog index's entries. Filters
 * narrow the candidates and never touch a score; an unknown (null) attribute never passes. `vegan` and
 * `cruelty_free` narrow only when true: strict function-calling clients fill every boolean argument, with
 * false for "not asked", and a person asking for products that are not vegan is not a case any tool serves;
 * so false filters nothing, as leaving the argument out does.
 */
import { create } from '@bufbuild/protobuf';
import { type ProductFilter, ProductFilterSchema } from '../../gen/skinmatch/v1/catalog_types_pb.ts';
import type { SkinType } from '../match/engine/index.ts';
import type { DerivedProduct } from './derive.ts';
import { brandKey, countryKey } from './filter-keys.ts';
import { KIND_BIT, type ProductKind } from './product-kind.ts';

/** What the filters read of an entry: its product, its kinds (product-kind.ts) and its precomputed keys. */
export interface Filterable {
  readonly product: DerivedProduct;
  readonly kinds: number;
  readonly brandKey: string;
  readonly countryKey: string;
}

const FREE_FROM: Readonly<Record<string, keyof DerivedProduct['attributes']>> = {
  fragrance: 'fragrance_free',
  alcohol: 'alcohol_free',
  fungal_acne_triggers: 'fungal_acne_safe',
};

/** The filter's fields that narrow, in the order the tools list them. */
export const FILTER_FIELDS = [
  'productType',
  'skinType',
  'freeFrom',
  'vegan',
  'crueltyFree',
  'brand',
  'country',
] as const;
export type FilterField = (typeof FILTER_FIELDS)[number];

/** The fields of `filter` that narrow the candidates: set, and for vegan and cruelty_free, true. */
export function appliedFields(filter: ProductFilter | undefined): FilterField[] {
  if (!filter) return [];
  return FILTER_FIELDS.filter((field) => {
    const value = filter[field];
    if (Array.isArray(value)) return value.length > 0;
    return value === true || (typeof value === 'string' && value.trim() !== '');
  });
}

/** A filter of `filter`'s fields `fields` alone. */
export function only(filter: ProductFilter, fields: readonly FilterField[]): ProductFilter {
  return create(ProductFilterSchema, Object.fromEntries(fields.map((field) => [field, filter[field]])));
}

/** The test an entry must pass, or undefined when the filter narrows nothing. */
export function matcher(filter: ProductFilter | undefined): ((entry: Filterable) => boolean) | undefined {
  if (!filter || appliedFields(filter).length === 0) return undefined;
  // A type outside the enumeration (checkFilter refuses it before here) names a bit no product has.
  const type = filter.productType ? (KIND_BIT[filter.productType as ProductKind] ?? 1 << 30) : 0;
  const brand = filter.brand ? brandKey(filter.brand) : '';
  const country = filter.country ? countryKey(filter.country) : '';
  const skinType = filter.skinType;
  const vegan = filter.vegan === true;
  const crueltyFree = filter.crueltyFree === true;
  const freeFrom = filter.freeFrom.map((item) => FREE_FROM[item]).filter((name) => name !== undefined);
  return (entry) => {
    const { attributes, skin_types } = entry.product;
    if (type !== 0 && (entry.kinds & type) === 0) return false;
    if (brand && entry.brandKey !== brand) return false;
    if (country && entry.countryKey !== country) return false;
    if (skinType && !skin_types.includes(skinType as SkinType)) return false;
    if (vegan && attributes.vegan !== true) return false;
    if (crueltyFree && attributes.cruelty_free !== true) return false;
    for (const attribute of freeFrom) if (attributes[attribute] !== true) return false;
    return true;
  };
}

/** Each distinct value of `read` is computed once: a catalog holds a few hundred brands and countries. */
export function memo(read: (value: string | null) => string): (value: string | null) => string {
  const seen = new Map<string | null, string>();
  return (value) => {
    let found = seen.get(value);
    if (found === undefined) {
      found = read(value);
      seen.set(value, found);
    }
    return found;
  };
}
