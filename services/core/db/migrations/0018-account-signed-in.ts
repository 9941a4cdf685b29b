import { Migration } from '@mikro-orm/migrations';

/**
 * When an account last signed in (account-store.ts). An account that holds nothing — no scan, no grant,
 * no token, no live sign-in session — is deleted by the account purge once its last sign-in is old enough
 * (account-purge.ts): the person signed in and then declined, closed the page or never saved. Existing
 * accounts start from their creation, so an old account that holds nothing goes on the first run.
 */
export class AccountSignedInMigration extends Migration {
  override name = '0018-account-signed-in';

  override up(): void {
    this.addSql('alter table accounts add column signed_in_at timestamptz null');
    this.addSql('update accounts set signed_in_at = created_at');
    this.addSql('alter table accounts alter column signed_in_at set not null');
    this.addSql('alter table accounts alter column signed_in_at set default now()');
    this.addSql('create index accounts_signed_in_idx on accounts (signed_in_at)');
  }

  override down(): void {
    this.addSql('alter table accounts drop column signed_in_at');
  }
}
