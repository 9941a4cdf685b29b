import { Migration } from '@mikro-orm/migrations';

/**
 * The skin type the person stated when a scan's one match was used, kept with its products: a stated
 * skin type changes scores (engine/score.ts), so get_skin_scan shows the used match's products with the
 * scores recommend_products gave (services/match/used-match.ts). Null when none was stated, as for the
 * matches used before this column.
 */
export class MatchSkinTypeMigration extends Migration {
  override name = '0017-match-skin-type';

  override up(): void {
    this.addSql('alter table scan_matches add column skin_type text');
  }

  override down(): void {
    this.addSql('alter table scan_matches drop column skin_type');
  }
}
