import { Migration } from '@mikro-orm/migrations';

/**
 * `list_my_scans` pages by a keyset cursor (account/scan-page-token.ts): `account_id = ? and (created_at, id)
 * < (?, ?) order by created_at desc, id desc`. The index gains the tiebreak `id`, so that one index range
 * scan both finds the page's first row and returns the rows in order, however deep the page.
 */
export class ScanListIndexMigration extends Migration {
  override name = '0014-scan-list-index';

  override up(): void {
    this.addSql('drop index scans_account_idx');
    this.addSql('create index scans_account_idx on scans (account_id, created_at desc, id desc)');
  }

  override down(): void {
    this.addSql('drop index scans_account_idx');
    this.addSql('create index scans_account_idx on scans (account_id, created_at desc)');
  }
}
