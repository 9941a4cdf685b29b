import { Migration } from '@mikro-orm/migrations';

/**
 * A product's derived document is written whole by every import and read whole by every catalog load;
 * nothing queries into it. As `json` (text, validated on the way in) PostgreSQL no longer builds a binary
 * tree on each write nor serialises one back to text on each load (bench:import, docs/data-path.md).
 * Existing rows are converted in place; their documents read back the same.
 */
export class ProductsDerivedJsonMigration extends Migration {
  override name = '0013-products-derived-json';

  override up(): void {
    this.addSql('alter table products alter column derived type json using derived::json');
  }

  override down(): void {
    this.addSql('alter table products alter column derived type jsonb using derived::jsonb');
  }
}
