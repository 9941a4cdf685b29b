/**
 * A WooCommerce product export (Products → Export, the built-in CSV exporter): one row per product and one
 * per variation. `Type` is WooCommerce's kind of listing (`simple`, `variable`, `variation`, `grouped`,
 * `external`, with `virtual`/`downloadable`), never the product type, which comes from `Categories`. A
 * variation whose parent is in the file is part of that product; one whose parent is not is imported as a
 * product of its own. The id is the SKU, or `id:<ID>` (WooCommerce's own way to name a product by its ID)
 * when there is none.
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
  NO_LIST,
  typeOfCategories,
} from './export-columns.ts';
import { ingredientSection } from './export-ingredients.ts';

/** Columns only WooCommerce's exporter writes (a merchant may leave some out of an export). */
const WOO_ONLY = [
  'Short description',
  'Parent',
  'Regular price',
  'Visibility in catalog',
  'Is featured?',
  'In stock?',
  'Tax status',
  'Attribute 1 name',
  'Grouped products',
  'Button text',
];

/** Whether a header is a WooCommerce product export's. */
export function isWooCommerce(columns: Columns): boolean {
  return columns.has('Name') && columns.has('Type') && columns.has('ID', 'SKU') && columns.has(...WOO_ONLY);
}

export function wooFields(columns: Columns): Field[] {
  const fields: Field[] = ['product_id', 'name', 'brand', 'product_type', 'image_url', 'ingredients'];
  if (columns.has('External URL')) fields.push('buy_url');
  if (columns.has('Tags')) fields.push('vegan', 'cruelty_free');
  if (attributeColumns(columns).length > 0) fields.push('country', 'skin_types');
  return fields;
}

/** Attributes (`Attribute 1 name`, `Attribute 1 value(s)`) that carry a field, by their folded name. */
const ATTRIBUTE_FIELDS: Readonly<Record<string, 'ingredients' | 'country' | 'skin_types' | 'brand'>> = {
  ingredients: 'ingredients',
  ingredient: 'ingredients',
  inci: 'ingredients',
  'ingredients (inci)': 'ingredients',
  'full ingredients': 'ingredients',
  country: 'country',
  'country of origin': 'country',
  'skin type': 'skin_types',
  'skin types': 'skin_types',
  'skin type(s)': 'skin_types',
  brand: 'brand',
};
/** Meta columns (`Meta: ingredients`, `Meta: _inci`) holding an ingredient list. */
const INGREDIENT_META = /^meta: _?(?:full_)?(?:ingredients?|inci)(?:_list)?$/;

export function readWooCommerce(columns: Columns, rows: readonly ExportRow[]): ExportRecord[] {
  const isVariation = (row: ExportRow) => kinds(columns, row).includes('variation');
  const parents = new Set<string>();
  for (const row of rows.filter((r) => !isVariation(r))) {
    const id = columns.cell(row, 'ID');
    if (id !== '') parents.add(`id:${id}`);
    if (columns.cell(row, 'SKU') !== '') parents.add(columns.cell(row, 'SKU'));
  }
  const results: ExportRecord[] = [];
  for (const row of rows) {
    const warnings: string[] = [];
    if (isVariation(row)) {
      const parent = columns.cell(row, 'Parent');
      // Its parent is the product; its options (size, shade) are no product of their own.
      // (A parent the shop does not sell takes its variations with it.)
      if (parents.has(parent)) continue;
      warnings.push(
        `a variation whose parent product (Parent ${parent === '' ? 'empty' : `"${parent}"`}) is not in the file: imported as a product of its own`,
      );
    }
    const skipped = notForSale(columns, row);
    if (skipped === null) results.push(product(columns, row, warnings));
    else results.push({ line: row.line, skipped, productId: productIdOf(columns, row) });
  }
  return results;
}

/** `Published` as WooCommerce's exporter writes a product's status (an empty cell: a file without it). */
const STATUSES = new Map<string, string | null>([
  ['1', null],
  ['', null],
  ['0', 'private (Published 0)'],
  ['-1', 'draft or pending review (Published -1)'],
]);

/**
 * Why the shop does not sell a product now, or null: not published (`Published` 0, private, seen by the
 * shop's staff only; -1, a draft or pending review), or `hidden` from both the shop's catalog and its
 * search (`Visibility in catalog`; `catalog` and `search` are each shown in one of them).
 */
function notForSale(columns: Columns, row: ExportRow): string | null {
  const published = columns.cell(row, 'Published');
  const status = STATUSES.get(published);
  if (status === undefined) return `Published "${published}", not 1 (published)`;
  if (status !== null) return status;
  if (columns.cell(row, 'Visibility in catalog').toLowerCase() === 'hidden') {
    return 'hidden from the shop and its search (Visibility in catalog hidden)';
  }
  return null;
}

/** The SKU, else `id:<ID>`. */
function productIdOf(columns: Columns, row: ExportRow): string {
  const id = columns.cell(row, 'ID');
  return columns.cell(row, 'SKU') || (id === '' ? '' : `id:${id}`);
}

/** `Type`: what WooCommerce lists the row as (`simple`, `variable`, `variation`, `virtual`…). */
function kinds(columns: Columns, row: ExportRow): string[] {
  return listItems(columns.cell(row, 'Type')).map((kind) => kind.toLowerCase());
}

function product(columns: Columns, row: ExportRow, warnings: string[]): ExportRecord {
  const productId = productIdOf(columns, row);
  const attributes = attributeValues(columns, row);
  const categories = typeOfCategories(listItems(columns.cell(row, 'Categories')));
  if (categories.conflict !== undefined) {
    warnings.push(
      `its categories name different kinds of product ("${categories.conflict}"): product_type left empty`,
    );
  }
  const brands = distinct([...listItems(columns.cell(row, 'Brands')), ...(attributes.brand ?? [])]);
  if (brands.length > 1)
    warnings.push(`it names ${brands.length} brands ("${brands.join('", "')}"): brand left empty`);
  const countries = attributes.country ?? [];
  if (countries.length > 1) warnings.push(`it names ${countries.length} countries: country left empty`);
  return {
    line: row.line,
    record: {
      product_id: productId,
      name: columns.cell(row, 'Name'),
      brand: brands.length === 1 ? brands[0]! : '',
      product_type: categories.type,
      image_url: listItems(columns.cell(row, 'Images'))[0] ?? '',
      buy_url: columns.cell(row, 'External URL'),
      ingredients: ingredients(columns, row, attributes.ingredients ?? [], warnings),
      country: countries.length === 1 ? countries[0]! : '',
      skin_types: (attributes.skin_types ?? []).join(';'),
      ...(columns.has('Tags') ? declaredFlags(listItems(columns.cell(row, 'Tags'))) : {}),
    },
    warnings,
  };
}

/** The `Attribute N name` columns, each with its `Attribute N value(s)` column. */
function attributeColumns(columns: Columns): { name: number; values: number }[] {
  return columns
    .matching((name) => /^attribute \d+ name$/.test(name))
    .flatMap((name) => {
      const n = /\d+/.exec(columns.names[name]!)![0];
      const values = columns.names.indexOf(`attribute ${n} value(s)`);
      return values < 0 ? [] : [{ name, values }];
    });
}

/** The values of the attributes that carry a field (an ingredients attribute's value is one list). */
function attributeValues(columns: Columns, row: ExportRow): Partial<Record<string, string[]>> {
  const found: Partial<Record<string, string[]>> = {};
  for (const { name, values } of attributeColumns(columns)) {
    const field = ATTRIBUTE_FIELDS[cellAt(row, name).toLowerCase().replace(/\s+/g, ' ')];
    const cell = cellAt(row, values);
    if (field === undefined || cell === '') continue;
    const items = field === 'ingredients' ? [cell.replaceAll('\\,', ',')] : listItems(cell);
    found[field] = [...(found[field] ?? []), ...items];
  }
  return found;
}

/** The list from an ingredients attribute or meta column, else from a section of a description headed Ingredients. */
function ingredients(
  columns: Columns,
  row: ExportRow,
  fromAttributes: readonly string[],
  warnings: string[],
): string {
  const meta = columns.matching((name) => INGREDIENT_META.test(name)).map((i) => cellAt(row, i));
  const given = distinct([...fromAttributes, ...meta]);
  if (given.length === 1) return given[0]!;
  if (given.length > 1) {
    warnings.push(
      `its ingredient attributes give ${given.length} different lists: ingredients left empty, ${NO_LIST}`,
    );
    return '';
  }
  const reasons: string[] = [];
  const lists: string[] = [];
  for (const column of ['Description', 'Short description']) {
    const section = ingredientSection(columns.cell(row, column));
    if ('list' in section) lists.push(section.list);
    else if (section.reason !== null) reasons.push(`the ${column} ${section.reason}`);
  }
  const found = distinct(lists);
  if (found.length === 1) return found[0]!;
  const why =
    found.length > 1
      ? 'its two descriptions give different lists headed "Ingredients"'
      : reasons.length > 0
        ? `no ingredients attribute, and ${reasons.join(', and ')}`
        : 'no ingredients attribute, and neither description gives them';
  warnings.push(`no ingredient list: ${why}; ${NO_LIST}`);
  return '';
}
