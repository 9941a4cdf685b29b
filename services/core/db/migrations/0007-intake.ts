/**
 * The person's upload page (issue 7). On each scan: the consent given (text version and time) and the keyed
 * hash of the consenting browser's secret, never the secret itself. Beside the scans: each scan's upload
 * attempts in the current window (a table of its own, so counting an attempt does not raise the scan's
 * version and wake its watchers), and the bot-challenge solutions already used, each kept only until its
 * challenge would have expired anyway.
 */
import { Migration } from '@mikro-orm/migrations';

export class IntakeMigration extends Migration {
  override name = '0007-intake';

  override up(): void {
    this.addSql(`alter table scans
      add column consent_version text null,
      add column consented_at timestamptz null,
      add column browser_hash varchar(64) null`);
    this.addSql(`create table intake_uploads (
      run_id uuid primary key references scans (id) on delete cascade,
      window_started_at timestamptz not null,
      attempts integer not null
    )`);
    this.addSql(`create table used_challenges (
      id varchar(64) primary key,
      expires_at timestamptz not null
    )`);
    this.addSql('create index used_challenges_expires_at_idx on used_challenges (expires_at)');
  }

  override down(): void {
    this.addSql('drop table used_challenges');
    this.addSql('drop table intake_uploads');
    this.addSql(
      'alter table scans drop column consent_version, drop column consented_at, drop column browser_hash',
    );
  }
}
