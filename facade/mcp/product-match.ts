/**
 * The spec's product match item: its JSON Schema and core's ProductMatch as that JSON. recommend_products
 * returns these, and get_skin_scan's used_match shows the same items again (scan-json.ts).
 */
import type { ProductMatch } from '../../gen/skinmatch/v1/match_pb.ts';

/** A field that may be null, as `anyOf` (clients that map schemas to one type per field drop type arrays). */
export const nullable = (type: string, extra: Record<string, unknown> & { description?: string } = {}) => {
  const { description, ...rest } = extra;
  return { anyOf: [{ type, ...rest }, { type: 'null' }], ...(description ? { description } : {}) };
};
export const strings = (maxItems: number, description: string) => ({
  type: 'array',
  items: { type: 'string' },
  maxItems,
  description,
});

/** A product's product_type as the tools show it: the catalog's words, which the filter's kinds find. */
export const PRODUCT_TYPE_SHOWN =
  'As the catalog gives it, often a retailer’s word (face oil, essence, mist) rather than one of the ' +
  'product_type filter’s values; the filter finds such types under their kind.';

export const PRODUCT_MATCH = {
  type: 'object',
  properties: {
    product_id: { type: 'string', description: 'Catalog identifier of the product.' },
    name: { type: 'string' },
    brand: nullable('string'),
    product_type: nullable('string', { description: PRODUCT_TYPE_SHOWN }),
    match_score: nullable('integer', {
      minimum: 0,
      maximum: 100,
      description:
        'Cosmetic fit estimate 0–100; null when nothing can be said (its ingredient list is missing or ' +
        'not a list).',
    }),
    targets: strings(6, 'What the formulation is designed to address.'),
    matches_concerns: strings(6, 'Scan concerns this product matches.'),
    key_ingredients: strings(5, 'The actives behind its targets; may be empty.'),
    attributes: {
      type: 'object',
      properties: {
        vegan: nullable('boolean'),
        cruelty_free: nullable('boolean'),
        fragrance_free: nullable('boolean'),
        alcohol_free: nullable('boolean'),
        fungal_acne_safe: nullable('boolean'),
      },
      required: ['vegan', 'cruelty_free', 'fragrance_free', 'alcohol_free', 'fungal_acne_safe'],
      additionalProperties: false,
    },
    country: nullable('string'),
    image_url: nullable('string', { format: 'uri' }),
    product_url: nullable('string', { format: 'uri' }),
    buy_url: nullable('string', { format: 'uri' }),
  },
  required: [
    'product_id',
    'name',
    'brand',
    'product_type',
    'match_score',
    'targets',
    'matches_concerns',
    'key_ingredients',
    'attributes',
    'country',
    'image_url',
    'product_url',
    'buy_url',
  ],
  additionalProperties: false,
} as const;

export function productMatchJson(match: ProductMatch): Record<string, unknown> {
  const p = match.product!;
  const a = p.attributes;
  return {
    product_id: p.productId,
    name: p.name,
    brand: p.brand ?? null,
    product_type: p.productType ?? null,
    match_score: match.matchScore ?? null,
    targets: p.targets.slice(0, 6),
    matches_concerns: match.matchesConcerns.slice(0, 6),
    key_ingredients: p.keyIngredients.slice(0, 5),
    attributes: {
      vegan: a?.vegan ?? null,
      cruelty_free: a?.crueltyFree ?? null,
      fragrance_free: a?.fragranceFree ?? null,
      alcohol_free: a?.alcoholFree ?? null,
      fungal_acne_safe: a?.fungalAcneSafe ?? null,
    },
    country: p.country ?? null,
    image_url: p.imageUrl ?? null,
    product_url: p.productUrl ?? null,
    buy_url: p.buyUrl ?? null,
  };
}
