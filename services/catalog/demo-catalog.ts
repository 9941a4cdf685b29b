/**
 * The bundled demo catalog (`data/sample-catalog.jsonl`, 320 fictional products marked `demo`), loaded so
 * that a newcomer's `npm start` shows matches. It goes only into an empty catalog, and importRecords never
 * lets demo records join real products; a real import removes it again.
 */
import type { EntityManager } from '@mikro-orm/core';
import { importRecords, readCatalogFile } from './catalog-import.ts';
import { countProducts } from './catalog-store.ts';

export const SAMPLE_CATALOG = new URL('../../data/sample-catalog.jsonl', import.meta.url).pathname;

export interface DemoLoad {
  readonly loaded: number;
  /** Why nothing was loaded; null when the demo catalog was loaded. */
  readonly skipped: string | null;
}

export async function loadDemoCatalog(em: EntityManager, path = SAMPLE_CATALOG): Promise<DemoLoad> {
  if ((await countProducts(em.fork())) > 0) return { loaded: 0, skipped: 'the catalog is not empty' };
  const report = await importRecords(em, readCatalogFile(path));
  if (report.rejected.length > 0) {
    return { loaded: report.imported, skipped: report.rejected[0]!.reason };
  }
  return { loaded: report.imported, skipped: null };
}
