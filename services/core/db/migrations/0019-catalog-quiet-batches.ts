import { Migration } from '@mikro-orm/migrations';

/**
 * An import's batches no longer announce themselves: a transaction that sets `skinmatch.catalog_quiet`
 * (product-writer.ts) changes products without `catalog_changed`, and the import announces once when it
 * ends (catalog-import.ts). One notification per 1000-product batch had every core start a full reload
 * per batch (docs/catalog-format.md, "Full import"). Every other write to products still announces itself.
 */
const NOTIFY = (quiet: boolean) => `create or replace function notify_catalog_change() returns trigger
  language plpgsql as $$
  begin
    ${quiet ? "if coalesce(current_setting('skinmatch.catalog_quiet', true), '') <> 'on' then" : ''}
      perform pg_notify('catalog_changed', '');
    ${quiet ? 'end if;' : ''}
    return null;
  end $$`;

export class CatalogQuietBatchesMigration extends Migration {
  override name = '0019-catalog-quiet-batches';

  override up(): void {
    this.addSql(NOTIFY(true));
  }

  override down(): void {
    this.addSql(NOTIFY(false));
  }
}
