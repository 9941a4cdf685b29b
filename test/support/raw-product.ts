/**
 * A catalog record for tests: every field a source may leave out is null, and a test names only what it is
 * about (the record's id, name and ingredients, usually).
 */
import type { RawProduct } from '../../services/catalog/derive.ts';

export function rawProduct(product_id: string, fields: Partial<RawProduct> = {}): RawProduct {
  return {
    product_id,
    name: `Product ${product_id}`,
    brand: null,
    product_type: 'serum',
    country: null,
    image_url: null,
    product_url: null,
    buy_url: null,
    ingredients: null,
    skin_types: null,
    vegan: null,
    cruelty_free: null,
    ...fields,
  };
}
