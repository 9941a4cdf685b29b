/**
 * Accounts (issue 9): accounts, their upstream identities, scans owned by an account, and the
 * authorization server's state. Everything that refers to an account is deleted with it (on delete
 * cascade), so deleting the account row deletes all the service keeps about the person.
 */
import { Migration } from '@mikro-orm/migrations';

export class AccountsMigration extends Migration {
  override name = '0009-accounts';

  override up(): void {
    this.addSql(`create table accounts (
      id uuid primary key,
      created_at timestamptz not null
    )`);
    this.addSql(`create table account_identities (
      provider text not null,
      subject text not null,
      account_id uuid not null references accounts (id) on delete cascade,
      created_at timestamptz not null,
      primary key (provider, subject)
    )`);
    this.addSql('create index account_identities_account_idx on account_identities (account_id)');
    this.addSql(
      'alter table scans add column account_id uuid null references accounts (id) on delete cascade',
    );
    this.addSql('create index scans_account_idx on scans (account_id, created_at desc)');
    this.addSql(`create table oauth_state (
      model text not null,
      id text not null,
      payload jsonb not null,
      grant_id text null,
      uid text null,
      user_code text null,
      account_id uuid null references accounts (id) on delete cascade,
      expires_at timestamptz not null,
      consumed_at timestamptz null,
      primary key (model, id)
    )`);
    this.addSql('create index oauth_state_grant_idx on oauth_state (grant_id) where grant_id is not null');
    this.addSql('create index oauth_state_uid_idx on oauth_state (model, uid) where uid is not null');
    this.addSql(
      'create index oauth_state_user_code_idx on oauth_state (model, user_code) where user_code is not null',
    );
    this.addSql(
      'create index oauth_state_account_idx on oauth_state (account_id) where account_id is not null',
    );
    this.addSql('create index oauth_state_expires_idx on oauth_state (expires_at)');
  }

  override down(): void {
    this.addSql('drop table oauth_state');
    this.addSql('alter table scans drop column account_id');
    this.addSql('drop table account_identities');
    this.addSql('drop table accounts');
  }
}
