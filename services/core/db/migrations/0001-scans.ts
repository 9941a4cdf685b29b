import { Migration } from '@mikro-orm/migrations';

/** Scans and operator settings; a trigger announces every scan change to WatchScan listeners. */
export class ScansMigration extends Migration {
  override name = '0001-scans';

  override up(): void {
    this.addSql(`create table scans (
      id uuid primary key,
      token_hash varchar(64) not null,
      source varchar(100) not null,
      status text not null default 'awaiting_upload'
        check (status in ('awaiting_upload', 'queued', 'analyzing', 'complete', 'failed')),
      stage text not null default '',
      progress integer not null default 0 check (progress between 0 and 100),
      failure_reason text null,
      scores jsonb null,
      concerns jsonb null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      expires_at timestamptz not null,
      completed_at timestamptz null
    )`);
    this.addSql('create index scans_expires_at_idx on scans (expires_at)');
    this.addSql(`create table settings (
      key text primary key,
      value jsonb not null,
      updated_at timestamptz not null
    )`);
    this.addSql(`insert into settings (key, value, updated_at) values ('admissions_enabled', 'true', now())`);
    this.addSql(`create function notify_scan_change() returns trigger language plpgsql as $$
      begin
        perform pg_notify('scan_changed', coalesce(new.id, old.id)::text);
        return null;
      end $$`);
    this.addSql(`create trigger scans_notify after insert or update or delete on scans
      for each row execute function notify_scan_change()`);
  }

  override down(): void {
    this.addSql('drop table scans');
    this.addSql('drop function notify_scan_change');
    this.addSql('drop table settings');
  }
}
