/**
 * A Shopify product export (Products → Export, "CSV for Excel, Numbers, or other spreadsheet programs"):
 * one product per Handle; the rows after a product's first that carry only its Handle and image or variant
 * columns are its further images and variants, not products. Both the classic columns (`Handle`,
 * `Body (HTML)`, `Image Src`, `Variant SKU`) and the newer ones (`URL handle`, `Description`,
 * `Product image URL`, `SKU`) are read.
 */
import type { Field } from './catalog-schema.ts';
import {
  type Columns,
  cellAt,
  declaredFlags,
  distinct,
  type ExportRecord,
  type ExportRow,
  listItems,
  listText,
  NO_LIST,
} from './export-columns.ts';
import { ingredientSection } from './export-ingredients.ts';

const HANDLE = ['Handle', 'URL handle'];
const BODY = ['Body (HTML)', 'Description'];
const IMAGE = ['Image Src', 'Product image URL'];
const VARIANT_IMAGE = ['Variant Image', 'Variant image URL'];

/** A metafield column for the product's ingredient list: `Ingredients (product.metafields.custom.ingredients)`. */
const INGREDIENT_METAFIELD =
  /\(product\.metafields\.[^.()]+\.(?:full_)?(?:ingredients?|inci)(?:_list)?\)$|^(?:ingredients?|inci) \(product\.metafields\.[^()]+\)$/;

/** Whether a header is a Shopify product export's. */
export function isShopify(columns: Columns): boolean {
  return (
    columns.has(...HANDLE) &&
    columns.has('Title') &&
    columns.has('Body (HTML)', 'Vendor', 'Variant SKU', 'Variant Price', 'Published on online store')
  );
}

export function shopifyFields(columns: Columns): Field[] {
  const fields: Field[] = ['product_id', 'name', 'brand', 'product_type', 'image_url', 'ingredients'];
  if (columns.has('Tags')) fields.push('vegan', 'cruelty_free');
  return fields;
}

export function readShopify(columns: Columns, rows: readonly ExportRow[]): ExportRecord[] {
  const groups = new Map<string, ExportRow[]>();
  const results: ExportRecord[] = [];
  for (const row of rows) {
    const handle = columns.cell(row, ...HANDLE);
    if (handle === '') {
      results.push({ line: row.line, rejected: 'the row has no Handle: it names no product' });
      continue;
    }
    groups.set(handle, [...(groups.get(handle) ?? []), row]);
  }
  const metafields = columns.matching((name) => INGREDIENT_METAFIELD.test(name));
  for (const [handle, group] of groups) {
    const titled = group.filter((row) => columns.cell(row, 'Title') !== '');
    if (titled.length === 0) {
      results.push({
        line: group[0]!.line,
        rejected: `no row for Handle "${handle}" has a Title: its image and variant rows belong to no product in the file`,
        productId: handle,
      });
      continue;
    }
    // A second titled row for one Handle is a second product of that id: the import rejects it as a duplicate.
    for (const row of titled) {
      // The product's fields, its status among them, are on its titled row; its variant rows share them.
      const skipped = notForSale(columns, row);
      if (skipped === null) results.push(product(columns, handle, row, group, metafields));
      else results.push({ line: row.line, skipped, productId: handle });
    }
  }
  return results;
}

/** Statuses of a product the shop sells (an export without `Status`, older than it, sells what it lists). */
const SELLING = new Set(['', 'active']);

/**
 * Why the shop does not sell a product now, or null: a `Status` other than active (`draft`, not ready to
 * sell; `archived`, no longer sold; `unlisted`, reached by its link only, kept out of search, collections
 * and the shop's own recommendations), or not published to the online store (`Published` FALSE).
 */
function notForSale(columns: Columns, row: ExportRow): string | null {
  const status = columns.cell(row, 'Status').toLowerCase();
  if (!SELLING.has(status)) {
    return ['draft', 'archived', 'unlisted'].includes(status)
      ? `${status} (Status)`
      : `Status "${columns.cell(row, 'Status')}", not active`;
  }
  for (const name of ['Published', 'Published on online store']) {
    if (columns.cell(row, name).toLowerCase() === 'false') {
      return `not published on the online store (${name} FALSE)`;
    }
  }
  return null;
}

function product(
  columns: Columns,
  handle: string,
  row: ExportRow,
  group: readonly ExportRow[],
  metafields: readonly number[],
): ExportRecord {
  const warnings: string[] = [];
  const category = columns.cell(row, 'Product Category', 'Product category');
  const categoryLeaf = category.startsWith('gid:') ? '' : (category.split('>').at(-1)?.trim() ?? '');
  return {
    line: row.line,
    record: {
      product_id: handle,
      name: columns.cell(row, 'Title'),
      brand: columns.cell(row, 'Vendor'),
      product_type: columns.cell(row, 'Type') || categoryLeaf,
      image_url: image(columns, row, group),
      ingredients: ingredients(columns, row, metafields, warnings),
      ...(columns.has('Tags') ? declaredFlags(listItems(columns.cell(row, 'Tags'))) : {}),
    },
    warnings,
  };
}

/** The product's first image: the one at position 1, else the first any of its rows gives. */
function image(columns: Columns, row: ExportRow, group: readonly ExportRow[]): string {
  const first = group.find(
    (r) => columns.cell(r, 'Image Position', 'Image position') === '1' && columns.cell(r, ...IMAGE) !== '',
  );
  if (first !== undefined) return columns.cell(first, ...IMAGE);
  const rows = [row, ...group.filter((r) => r !== row)];
  for (const names of [IMAGE, VARIANT_IMAGE]) {
    const found = rows.map((r) => columns.cell(r, ...names)).find((url) => url !== '');
    if (found !== undefined) return found;
  }
  return '';
}

/** The list from an ingredients metafield, else from a section of the description headed Ingredients. */
function ingredients(
  columns: Columns,
  row: ExportRow,
  metafields: readonly number[],
  warnings: string[],
): string {
  const given = distinct(metafields.map((i) => listText(cellAt(row, i))));
  if (given.length === 1) return given[0]!;
  if (given.length > 1) {
    warnings.push(
      `its ingredient metafields give ${given.length} different lists: ingredients left empty, ${NO_LIST}`,
    );
    return '';
  }
  const body = columns.cell(row, ...BODY);
  const section = ingredientSection(body);
  if ('list' in section) return section.list;
  const where =
    metafields.length > 0 ? 'its ingredients metafield is empty' : 'the export has no ingredients metafield';
  const description = `the description (Body (HTML)) ${section.reason ?? 'does not give them'}`;
  warnings.push(`no ingredient list: ${where}, and ${description}; ${NO_LIST}`);
  return '';
}
