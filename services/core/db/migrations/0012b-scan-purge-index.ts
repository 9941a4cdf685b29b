import { Migration } from '@mikro-orm/migrations';

/**
 * The purge's two questions each get a partial index holding only the scans they can select — guest scans
 * by expiry, scans without a photo by start time — so the scheduled job never reads the whole table
 * (`scans_expires_at_idx` covers account scans too, and the planner preferred `scans_account_idx` for
 * `account_id is null`, i.e. every guest scan).
 */
export class ScanPurgeIndexMigration extends Migration {
  override name = '0012b-scan-purge-index';

  override up(): void {
    this.addSql('create index scans_guest_expiry_idx on scans (expires_at) where account_id is null');
    this.addSql(
      `create index scans_awaiting_upload_idx on scans (created_at) where status = 'awaiting_upload'`,
    );
  }

  override down(): void {
    this.addSql('drop index scans_awaiting_upload_idx');
    this.addSql('drop index scans_guest_expiry_idx');
  }
}
