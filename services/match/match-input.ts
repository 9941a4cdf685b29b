/**
 * Core's checks of a recommendation's filters, the same bounds as the tool's input schema (spec:
 * recommend_products input), so internal callers are held to them too.
 */
import type { ProductFilter } from '../../gen/skinmatch/v1/catalog_types_pb.ts';
import { serviceError } from '../shared/errors.ts';
import { characterCount } from '../shared/text.ts';
import { type SkinType, STATED_SKIN_TYPES } from './engine/index.ts';

export const PRODUCT_TYPES = [
  'cleanser',
  'toner',
  'serum',
  'moisturizer',
  'sunscreen',
  'eye_care',
  'exfoliator',
  'mask',
  'treatment',
] as const;
export const FREE_FROM = ['fragrance', 'alcohol', 'fungal_acne_triggers'] as const;
export const MAX_FREE_FROM = 3;
export const MAX_BRAND = 60;
export const MAX_COUNTRY = 40;

export function checkFilter(filter: ProductFilter | undefined): SkinType | null {
  if (!filter) return null;
  const invalid = (field: string, message: string) => serviceError('invalid_input', message, { field });
  if (filter.productType && !(PRODUCT_TYPES as readonly string[]).includes(filter.productType)) {
    throw invalid('product_type', `product_type must be one of ${PRODUCT_TYPES.join(', ')}.`);
  }
  if (filter.skinType && !(STATED_SKIN_TYPES as readonly string[]).includes(filter.skinType)) {
    throw invalid('skin_type', `skin_type must be one of ${STATED_SKIN_TYPES.join(', ')}.`);
  }
  if (filter.freeFrom.length > MAX_FREE_FROM)
    throw invalid('free_from', `free_from takes at most ${MAX_FREE_FROM} items.`);
  for (const item of filter.freeFrom) {
    if (!(FREE_FROM as readonly string[]).includes(item)) {
      throw invalid('free_from', `free_from items must be ${FREE_FROM.join(', ')}.`);
    }
  }
  if (characterCount(filter.brand) > MAX_BRAND)
    throw invalid('brand', `brand is at most ${MAX_BRAND} characters.`);
  if (characterCount(filter.country) > MAX_COUNTRY)
    throw invalid('country', `country is at most ${MAX_COUNTRY} characters.`);
  return (filter.skinType as SkinType) || null;
}
