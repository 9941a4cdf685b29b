import { Migration } from '@mikro-orm/migrations';

/**
 * The product catalog (source fields plus what was derived from the INCI list) and the record of each
 * scan's consumed match, whose primary key makes the allowance consumable exactly once.
 */
export class CatalogMigration extends Migration {
  override name = '0002-catalog';

  override up(): void {
    this.addSql(`create table products (
      product_id text primary key,
      name text not null,
      brand text null,
      product_type text null,
      country text null,
      image_url text null,
      product_url text null,
      buy_url text null,
      ingredients_text text null,
      declared_skin_types jsonb null,
      vegan boolean null,
      cruelty_free boolean null,
      demo boolean not null default false,
      derived jsonb not null,
      updated_at timestamptz not null
    )`);
    this.addSql(`create function notify_catalog_change() returns trigger language plpgsql as $$
      begin
        perform pg_notify('catalog_changed', '');
        return null;
      end $$`);
    this.addSql(`create trigger products_notify after insert or update or delete or truncate on products
      for each statement execute function notify_catalog_change()`);
    this.addSql(`create table scan_matches (
      run_id uuid primary key references scans (id) on delete cascade,
      consumed_at timestamptz not null,
      product_ids jsonb not null,
      engine_version text not null
    )`);
  }

  override down(): void {
    this.addSql('drop table scan_matches');
    this.addSql('drop table products');
    this.addSql('drop function notify_catalog_change');
  }
}
