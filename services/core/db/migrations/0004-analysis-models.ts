import { Migration } from '@mikro-orm/migrations';

/** Which models (and calibration) produced a scan's scores, so any score can be traced and reproduced. */
export class AnalysisModelsMigration extends Migration {
  override name = '0004-analysis-models';

  override up(): void {
    this.addSql('alter table scans add column analysis_models jsonb null');
  }

  override down(): void {
    this.addSql('alter table scans drop column analysis_models');
  }
}
