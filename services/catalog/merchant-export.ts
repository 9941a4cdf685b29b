/**
 * A Google Merchant Center product feed as shops keep it for Shopping (tab-separated `.txt`/`.tsv`, or a
 * spreadsheet's CSV): one row per item, the attributes' names as the feed specification writes them
 * (`image_link`, or `image link`, or `g:image_link` as an XML feed saved as a table has them). Variants of
 * one product share an `item_group_id` (sizes of one serum): they are one product, named by it. The feed
 * carries no ingredient attribute: the list is an `ingredients` column a shop added, else a section of the
 * `description` titled `Ingredients` (export-ingredients.ts) or a sentence of it opening with `Ingredients:`.
 */
import type { Field } from './catalog-schema.ts';
import {
  type Columns,
  type ExportRecord,
  type ExportRow,
  listText,
  NO_LIST,
  typeOfCategories,
} from './export-columns.ts';
import { ingredientSection } from './export-ingredients.ts';

/** An attribute's column as feeds name it: `item_group_id`, `item group id`, `g:item_group_id`. */
const names = (attribute: string) => [attribute, attribute.replaceAll('_', ' '), `g:${attribute}`];

/** Attributes only a Merchant feed has (`link`, `image_link`, `brand` are catalog columns too). */
const FEED_ONLY = [
  'availability',
  'price',
  'sale_price',
  'google_product_category',
  'gtin',
  'mpn',
  'condition',
  'item_group_id',
  'identifier_exists',
  'additional_image_link',
];

/** Whether a header is a Merchant feed's: `id` and `title` with an attribute no other file has. */
export function isMerchantFeed(columns: Columns): boolean {
  return (
    columns.has(...names('id')) && columns.has(...names('title')) && columns.has(...FEED_ONLY.flatMap(names))
  );
}

export function merchantFields(columns: Columns): Field[] {
  const fields: Field[] = ['product_id', 'name', 'ingredients'];
  if (columns.has(...names('brand'))) fields.push('brand');
  if (columns.has(...names('product_type'), ...names('google_product_category'))) fields.push('product_type');
  if (columns.has(...names('image_link'))) fields.push('image_url');
  if (columns.has(...names('link'))) fields.push('product_url');
  return fields;
}

export function readMerchantFeed(columns: Columns, rows: readonly ExportRow[]): ExportRecord[] {
  const cell = (row: ExportRow, attribute: string) => columns.cell(row, ...names(attribute));
  const groups = new Map<string, ExportRow[]>();
  const results: ExportRecord[] = [];
  for (const row of rows) {
    const id = cell(row, 'item_group_id') || cell(row, 'id');
    if (id === '') results.push({ line: row.line, rejected: 'the row has no id: it names no product' });
    else groups.set(id, [...(groups.get(id) ?? []), row]);
  }
  for (const [id, [row]] of groups) {
    // A group's first item gives the product's fields; the others are its other sizes or shades.
    const warnings: string[] = [];
    results.push({
      line: row!.line,
      record: {
        product_id: id,
        name: cell(row!, 'title'),
        brand: cell(row!, 'brand'),
        product_type: productType(cell(row!, 'product_type'), cell(row!, 'google_product_category')),
        image_url: cell(row!, 'image_link'),
        product_url: cell(row!, 'link'),
        ingredients: ingredients(columns, row!, warnings),
      },
      warnings,
    });
  }
  return results.sort((a, b) => a.line - b.line);
}

/**
 * The last level of the shop's own `product_type` (`Skincare > Serums` is `Serums`), else of Google's
 * category when written out (`Health & Beauty > … > Skin Care > Lotions & Moisturizers`; its numeric id says
 * nothing here).
 */
function productType(shops: string, google: string): string {
  const own = typeOfCategories(shops === '' ? [] : [shops]).type;
  if (own !== '' || /^\d*$/.test(google)) return own;
  return typeOfCategories([google]).type;
}

/** `Ingredients:` opening a sentence of plain text (`A light serum. Ingredients: Aqua, …`), to the line's end. */
const SENTENCE_TITLE =
  /(?<=[.!?]\s+)(?:full\s+)?(?:ingredients?|inci)(?:\s+list)?(?:\s*\(\s*inci\s*\))?\s*:\s*(\S[^\n]*)/gi;

/** An `ingredients` (or `inci`) column a shop added, else a titled line of the description. */
function ingredients(columns: Columns, row: ExportRow, warnings: string[]): string {
  const column = columns.cell(row, 'ingredients', 'inci', 'g:ingredients');
  if (column !== '') return listText(column);
  const description = columns.cell(row, ...names('description'));
  const section = ingredientSection(description);
  if ('list' in section) return section.list;
  // A feed's description is plain text, often one paragraph: the title may open a sentence in it.
  const titled = [...description.matchAll(SENTENCE_TITLE)];
  if (titled.length === 1) return titled[0]![1]!.trim();
  const where = columns.has('ingredients', 'inci', 'g:ingredients')
    ? 'its ingredients column is empty'
    : 'the feed has no ingredients column';
  warnings.push(
    `no ingredient list: ${where}, and the description ${section.reason ?? 'does not give them'}; ${NO_LIST}`,
  );
  return '';
}
