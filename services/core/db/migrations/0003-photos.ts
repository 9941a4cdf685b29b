import { Migration } from '@mikro-orm/migrations';

/**
 * Uploaded photos, kept only until their analysis ends (the row is deleted in the same transaction that
 * writes the scan's final state). One photo per scan: a new upload replaces the old one.
 */
export class PhotosMigration extends Migration {
  override name = '0003-photos';

  override up(): void {
    this.addSql(`create table scan_photos (
      run_id uuid primary key references scans (id) on delete cascade,
      image bytea not null,
      content_type text not null,
      uploaded_at timestamptz not null
    )`);
  }

  override down(): void {
    this.addSql('drop table scan_photos');
  }
}
