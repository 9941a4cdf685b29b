import { Migration } from '@mikro-orm/migrations';

/**
 * The authorization server's records that a client or a browser presents (codes, refresh and access
 * tokens, sessions, interactions, registration access tokens) were stored under their value in clear; the
 * façade now stores them under a keyed hash that core cannot compute (facade/oauth/state-adapter.ts). The
 * ones stored in clear are deleted: whoever held them signs in again (an MCP client's refresh fails with
 * invalid_grant and it starts a new authorization). Registered clients and grants are kept; a client's
 * secret stored in clear is sealed by the façade the first time it reads the client.
 */
export class OAuthStateAtRestMigration extends Migration {
  override name = '0016-oauth-state-at-rest';

  override up(): void {
    this.addSql(`delete from oauth_state where model not in ('Client', 'Grant')`);
  }

  override down(): void {
    // Records stored under a hash cannot be put back in clear: the down migration ends them as well.
    this.addSql(`delete from oauth_state where model not in ('Client', 'Grant')`);
  }
}
