import { Migration } from '@mikro-orm/migrations';

/**
 * The counters every façade replica shares for rate limits (rate-limiter-flexible's PostgreSQL layout:
 * `key` is budget:network or budget:account, `expire` the end of its window in epoch milliseconds).
 * Created here so that the façade, which only reads and writes these rows, never changes the schema.
 */
export class RateLimitsMigration extends Migration {
  override name = '0010-rate-limits';

  override up(): void {
    this.addSql(`create table rate_limits (
      key varchar(255) primary key,
      points integer not null default 0,
      expire bigint
    )`);
    this.addSql('create index rate_limits_expire on rate_limits (expire)');
  }

  override down(): void {
    this.addSql('drop table rate_limits');
  }
}
