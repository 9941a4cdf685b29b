/**
 * A Shopify shop's products as JSON (`/products.json` of its online store, or the Admin API's `products`):
 * `{"products": [{"handle", "title", "body_html", "vendor", "product_type", "tags", "images", …}]}`. Read as
 * the CSV export is (shopify-export.ts): the `handle` is the product_id, so either file updates the same
 * products; the list is a titled section of `body_html`; tags declare the flags; a product whose `status`
 * is not active, or whose `published_at` is null, is not for sale.
 */
import type { Field } from './catalog-schema.ts';
import { declaredFlags, type ExportRecord, listItems, NO_LIST } from './export-columns.ts';
import { ingredientSection } from './export-ingredients.ts';

export const SHOPIFY_JSON_FIELDS: readonly Field[] = [
  'product_id',
  'name',
  'brand',
  'product_type',
  'image_url',
  'ingredients',
  'vegan',
  'cruelty_free',
];

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether a file's value is Shopify's products JSON: `products`, a list whose objects have a handle. */
export function isShopifyJson(value: unknown): value is { products: unknown[] } {
  return (
    isObject(value) &&
    Array.isArray(value.products) &&
    value.products.some((product) => isObject(product) && 'handle' in product && 'title' in product)
  );
}

/** Text of a JSON value Shopify gives as a string or a number (an id); '' for anything else. */
const text = (value: unknown): string =>
  typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '';

/** The products, each at the line its object starts on (`lines`, in order). */
export function readShopifyJson(products: readonly unknown[], lines: readonly number[]): ExportRecord[] {
  return products.map((product, i): ExportRecord => {
    const line = lines[i] ?? 1;
    if (!isObject(product)) return { line, rejected: 'a product must be a JSON object' };
    const handle = text(product.handle);
    if (handle === '') return { line, rejected: 'the product has no handle: it names no product' };
    const status = text(product.status).toLowerCase();
    if (status !== '' && status !== 'active')
      return { line, skipped: `${status} (status)`, productId: handle };
    if ('published_at' in product && product.published_at === null) {
      return { line, skipped: 'not published on the online store (published_at null)', productId: handle };
    }
    const warnings: string[] = [];
    const tags = Array.isArray(product.tags) ? product.tags.map(text) : listItems(text(product.tags));
    return {
      line,
      record: {
        product_id: handle,
        name: text(product.title),
        brand: text(product.vendor),
        product_type: text(product.product_type),
        image_url: image(product),
        ingredients: ingredients(text(product.body_html), warnings),
        ...declaredFlags(tags),
      },
      warnings,
    };
  });
}

/** The image at position 1, else the first listed, else the product's `image`. */
function image(product: Json): string {
  const images = (Array.isArray(product.images) ? product.images : []).filter(isObject);
  const first = images.find((img) => img.position === 1) ?? images[0];
  return text(first?.src) || (isObject(product.image) ? text(product.image.src) : '');
}

function ingredients(body: string, warnings: string[]): string {
  const section = ingredientSection(body);
  if ('list' in section) return section.list;
  warnings.push(
    `no ingredient list: the description (body_html) ${section.reason ?? 'does not give them'}; ${NO_LIST}`,
  );
  return '';
}
