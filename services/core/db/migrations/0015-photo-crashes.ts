import { Migration } from '@mikro-orm/migrations';

/**
 * How many times a core died while analysing the photo (worker-liveness.ts counts, dead-pool-jobs.ts
 * bounds): a photo that makes core crash (out of memory, an abort) fails its scan after a few crashes
 * rather than being retried forever. A new photo starts again from 0.
 */
export class PhotoCrashesMigration extends Migration {
  override name = '0015-photo-crashes';

  override up(): void {
    this.addSql('alter table scan_photos add column analysis_crashes integer not null default 0');
  }

  override down(): void {
    this.addSql('alter table scan_photos drop column analysis_crashes');
  }
}
