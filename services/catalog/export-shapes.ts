/**
 * Product exports of shop platforms, read as they come (docs/catalog-format.md, "Exports from shop
 * platforms"): a header that is a Shopify, WooCommerce or Open Beauty Facts export, or a Google Merchant
 * feed, is recognised by the columns it holds, and its rows are read into catalog records by that
 * platform's rules — never by guessing which column means what. What an export cannot give a product is
 * left empty, with a warning on its line.
 */
import { type Field, isColumn } from './catalog-schema.ts';
import { Columns, type ExportRecord, type ExportRow } from './export-columns.ts';
import { isMerchantFeed, merchantFields, readMerchantFeed } from './merchant-export.ts';
import { isOpenBeautyFacts, obfFields, readOpenBeautyFacts } from './obf-export.ts';
import { isShopify, readShopify, shopifyFields } from './shopify-export.ts';
import { isWooCommerce, readWooCommerce, wooFields } from './woocommerce-export.ts';

export type { ExportRecord, ExportRow };

export interface ExportShape {
  /** Whether the export quotes fields (Open Beauty Facts' tab-separated files never do). */
  readonly quoted: boolean;
  /** The fields its records carry (the others keep what a stored product holds). */
  readonly fields: readonly Field[];
  /** The products its rows hold, at the line each starts on. */
  read(rows: readonly ExportRow[]): ExportRecord[];
}

const PLATFORMS = [
  { platform: 'Shopify', quoted: true, is: isShopify, fields: shopifyFields, read: readShopify },
  { platform: 'WooCommerce', quoted: true, is: isWooCommerce, fields: wooFields, read: readWooCommerce },
  {
    platform: 'Open Beauty Facts',
    quoted: false,
    is: isOpenBeautyFacts,
    fields: obfFields,
    read: readOpenBeautyFacts,
  },
  {
    platform: 'Google Merchant Center',
    quoted: true,
    is: isMerchantFeed,
    fields: merchantFields,
    read: readMerchantFeed,
  },
] as const;

/**
 * The export a header is, or null when it is no platform's (it is then read as catalog columns). Each
 * platform is told by columns only its exports have (`Handle`; `Short description`, `Parent`; `code` with
 * `product_name`; `id` and `title` with `availability`, `gtin`, `item_group_id`…), none of them a catalog column: a file the catalog format reads is never taken for one.
 */
export function exportShape(header: readonly string[]): ExportShape | null {
  // A header of catalog columns only is the catalog's own format, whatever else it might resemble.
  if (header.every(isColumn)) return null;
  const columns = new Columns(header);
  const found = PLATFORMS.find((platform) => platform.is(columns));
  if (found === undefined) return null;
  return {
    quoted: found.quoted,
    fields: found.fields(columns),
    read: (rows) => found.read(columns, rows),
  };
}
