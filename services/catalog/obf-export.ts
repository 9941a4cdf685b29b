/**
 * An Open Beauty Facts export (the database's CSV dump or a search's download: tab-separated, one product
 * per row, named by its barcode `code`). Taxonomy tags are read as the values they stand for
 * (`en:face-creams` is `Face creams`, `en:united-kingdom` is `United Kingdom`); a label says `vegan` or
 * `cruelty_free` only when it declares it (`en:vegan`, `en:cruelty-free`), and its absence says nothing.
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
  tagValue,
} from './export-columns.ts';

const OBSOLETE = new Set(['on', '1', 'true', 'yes']);

/** Whether a header is an Open Beauty Facts export's. */
export function isOpenBeautyFacts(columns: Columns): boolean {
  return (
    columns.has('code') &&
    columns.matching((name) => /^product_name(?:_[a-z]{2})?$/.test(name)).length > 0 &&
    (columns.has('brands', 'brands_tags', 'countries_tags', 'labels_tags', 'categories_tags') ||
      ingredientColumns(columns).length > 0)
  );
}

export function obfFields(columns: Columns): Field[] {
  const fields: Field[] = ['product_id', 'name', 'brand', 'product_type', 'country', 'ingredients'];
  if (columns.has('image_url', 'image_front_url')) fields.push('image_url');
  if (columns.has('url')) fields.push('product_url');
  if (columns.has('labels', 'labels_tags', 'labels_en')) fields.push('vegan', 'cruelty_free');
  return fields;
}

/** `ingredients_text`, then its English, then any other language's (`ingredients_text_fr`). */
function ingredientColumns(columns: Columns): number[] {
  const all = columns.matching((name) => /^ingredients_text(?:_[a-z]{2})?$/.test(name));
  const rank = (i: number) => ['ingredients_text', 'ingredients_text_en'].indexOf(columns.names[i]!) >>> 0;
  return all.sort((a, b) => rank(a) - rank(b));
}

/** The first of the columns (in the order given) with a value in the row. */
function firstOf(row: ExportRow, columns: readonly number[]): string {
  return columns.map((i) => cellAt(row, i)).find((value) => value !== '') ?? '';
}

export function readOpenBeautyFacts(columns: Columns, rows: readonly ExportRow[]): ExportRecord[] {
  const names = columns.matching((name) => /^product_name(?:_[a-z]{2})?$/.test(name));
  const nameRank = (i: number) => ['product_name', 'product_name_en'].indexOf(columns.names[i]!) >>> 0;
  names.sort((a, b) => nameRank(a) - nameRank(b));
  const lists = ingredientColumns(columns);
  return rows.map((row): ExportRecord => {
    // Open Beauty Facts marks a product no longer sold `obsolete` (`on`), where an export carries the column.
    if (OBSOLETE.has(columns.cell(row, 'obsolete').toLowerCase())) {
      return {
        line: row.line,
        skipped: 'obsolete, no longer sold (obsolete)',
        productId: columns.cell(row, 'code'),
      };
    }
    const warnings: string[] = [];
    const brands = values(columns, row, 'brands', 'brands_tags');
    if (brands.length > 1)
      warnings.push(`it names ${brands.length} brands ("${brands.join('", "')}"): brand left empty`);
    const countries = values(columns, row, 'countries_en', 'countries_tags', 'countries', true);
    if (countries.length > 1) {
      warnings.push(
        `it is sold in ${countries.length} countries ("${countries.join('", "')}"): country left empty`,
      );
    }
    const ingredients = firstOf(row, lists);
    if (ingredients === '') warnings.push(`Open Beauty Facts gives no ingredient list for it: ${NO_LIST}`);
    const labels = [
      ...listItems(columns.cell(row, 'labels_tags')),
      ...listItems(columns.cell(row, 'labels')),
      ...listItems(columns.cell(row, 'labels_en')),
    ];
    return {
      line: row.line,
      record: {
        product_id: columns.cell(row, 'code'),
        name: firstOf(row, names),
        brand: brands.length === 1 ? brands[0]! : '',
        // Categories run from the most general to the most specific (`Cosmetics, Face creams`).
        product_type: values(columns, row, 'categories_en', 'categories_tags', 'categories').at(-1) ?? '',
        country: countries.length === 1 ? countries[0]! : '',
        image_url: columns.cell(row, 'image_url', 'image_front_url'),
        product_url: columns.cell(row, 'url'),
        ingredients,
        ...declaredFlags(labels),
      },
      warnings,
    };
  });
}

/**
 * A list field's values from the first of its columns with any: the English names (`…_en`), else the
 * tags resolved, else the text as typed. Countries' words are capitalised (`United Kingdom`).
 */
function values(
  columns: Columns,
  row: ExportRow,
  english: string,
  tags: string,
  typed?: string,
  capitalise = false,
): string[] {
  const fromTags = listItems(columns.cell(row, tags)).map((tag) =>
    capitalise ? tagValue(tag).replace(/\b\p{Ll}/gu, (c) => c.toUpperCase()) : tagValue(tag),
  );
  const sources = [
    listItems(columns.cell(row, english)),
    fromTags,
    listItems(columns.cell(row, typed ?? '')),
  ];
  return distinct(sources.find((list) => list.length > 0) ?? []);
}
