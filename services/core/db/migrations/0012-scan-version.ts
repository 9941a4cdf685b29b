import { Migration } from '@mikro-orm/migrations';

/**
 * A version per scan that every change raises by one, set by the database itself so no writer can forget
 * it. WatchScan compares versions: two writes in the same millisecond have equal `updated_at` but never
 * equal versions.
 */
export class ScanVersionMigration extends Migration {
  override name = '0012-scan-version';

  override up(): void {
    this.addSql('alter table scans add column version integer not null default 0');
    this.addSql(`create function bump_scan_version() returns trigger language plpgsql as $$
      begin
        new.version := old.version + 1;
        return new;
      end $$`);
    this.addSql(`create trigger scans_version before update on scans
      for each row execute function bump_scan_version()`);
  }

  override down(): void {
    this.addSql('drop trigger scans_version on scans');
    this.addSql('drop function bump_scan_version');
    this.addSql('alter table scans drop column version');
  }
}
