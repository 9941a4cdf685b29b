/**
 * What the readers of shop platforms' exports (export-shapes.ts) share: a row's cells by column name, the
 * record they make, and the words a platform's tags and lists are written in.
 */
import type { Field } from './catalog-schema.ts';
import { productKinds } from './product-kind.ts';

/** A row of the file with the line it starts on. */
export interface ExportRow {
  readonly line: number;
  readonly cells: readonly string[];
}

/** One product read from an export's rows: the record's fields as text, and what the export could not give. */
export type ExportRecord =
  | {
      readonly line: number;
      readonly record: Partial<Record<Field, string>>;
      readonly warnings: readonly string[];
    }
  | { readonly line: number; readonly rejected: string; readonly productId?: string }
  /** A product the shop does not sell now (a draft, archived, private or hidden one): not imported. */
  | { readonly line: number; readonly skipped: string; readonly productId: string };

/** An export's header, read by column name (case and surrounding spaces aside). */
export class Columns {
  readonly names: readonly string[];
  private readonly index = new Map<string, number>();
  constructor(names: readonly string[]) {
    this.names = names.map((name) => name.trim().toLowerCase());
    this.names.forEach((name, i) => {
      if (!this.index.has(name)) this.index.set(name, i);
    });
  }

  has(...names: string[]): boolean {
    return names.some((name) => this.index.has(name.toLowerCase()));
  }

  /** The first of `names` the header holds, read in `row`, trimmed; '' when none is there or it is empty. */
  cell(row: ExportRow, ...names: string[]): string {
    for (const name of names) {
      const i = this.index.get(name.toLowerCase());
      if (i !== undefined) return (row.cells[i] ?? '').trim();
    }
    return '';
  }

  /** The columns whose names `test` accepts, in header order. */
  matching(test: (name: string) => boolean): number[] {
    return this.names.flatMap((name, i) => (test(name) ? [i] : []));
  }
}

/** The cell at column `i` of `row`, trimmed. */
export const cellAt = (row: ExportRow, i: number): string => (row.cells[i] ?? '').trim();

/** A platform's list in one cell: `a, b, c` (`\,` is a comma inside an item, as WooCommerce writes it). */
export function listItems(cell: string): string[] {
  return cell
    .split(/(?<!\\),/)
    .map((item) => item.replaceAll('\\,', ',').trim())
    .filter((item) => item !== '');
}

/** The distinct non-empty values; one value is the answer, several are a conflict, none is nothing. */
export function distinct(values: readonly string[]): string[] {
  return [...new Set(values.filter((value) => value !== ''))];
}

/** A folded tag or label (`Cruelty-Free`, `en:cruelty-free`, `cruelty free`): lower case, `-` for spaces. */
export function tagKey(tag: string): string {
  return tag
    .trim()
    .toLowerCase()
    .replace(/^[a-z]{2}:/, '')
    .replace(/[\s_]+/g, '-');
}

/** Tags and labels that declare a product vegan or cruelty-free; others say nothing (never false). */
const VEGAN = new Set(['vegan', 'certified-vegan', 'vegan-society']);
const CRUELTY_FREE = new Set([
  'cruelty-free',
  'crueltyfree',
  'not-tested-on-animals',
  'leaping-bunny',
  'peta-cruelty-free',
]);

/** `vegan` and `cruelty_free` as the tags declare them: 'true', or '' (unknown) when they say nothing. */
export function declaredFlags(
  tags: readonly string[],
): Pick<Record<Field, string>, 'vegan' | 'cruelty_free'> {
  const keys = tags.map(tagKey);
  return {
    vegan: keys.some((key) => VEGAN.has(key)) ? 'true' : '',
    cruelty_free: keys.some((key) => CRUELTY_FREE.has(key)) ? 'true' : '',
  };
}

/**
 * The product type among a platform's categories (each `Parent > Child`, the child counting): the one
 * category that names a kind of product (product-kind.ts), or the only category there is. Categories naming
 * different kinds give none, with the reason.
 */
export function typeOfCategories(categories: readonly string[]): { type: string; conflict?: string } {
  const leaves = distinct(categories.map((path) => path.split('>').at(-1)!.trim())).filter(
    (leaf) => leaf.toLowerCase() !== 'uncategorized',
  );
  const naming = leaves.filter((leaf) => productKinds(leaf) !== 0);
  const kinds = new Set(naming.map(productKinds));
  if (kinds.size > 1) return { type: '', conflict: naming.join('", "') };
  if (naming.length > 0) return { type: naming[0]! };
  return { type: leaves.length === 1 ? leaves[0]! : '' };
}

/** A taxonomy tag as the value it stands for: `en:face-creams` is `Face creams`. */
export function tagValue(tag: string): string {
  const words = tag
    .trim()
    .replace(/^[a-z]{2}:/, '')
    .replace(/-/g, ' ')
    .trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** An ingredient list a platform gives as a JSON list of texts (Shopify's list metafields) as one text. */
export function listText(value: string): string {
  if (!value.startsWith('[')) return value;
  try {
    const list: unknown = JSON.parse(value);
    if (Array.isArray(list) && list.every((item) => typeof item === 'string')) return list.join(', ');
  } catch {}
  return value;
}

/** The reason every ingredient flag of a product without a list is unknown, for warnings. */
export const NO_LIST = 'imported with every flag and the score unknown';
