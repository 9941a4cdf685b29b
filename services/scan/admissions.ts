/**
 * The operator's switch for new scans. While it is off, StartScan fails with `admissions_paused`; reading
 * and deleting scans keep working.
 */
import type { EntityManager } from '@mikro-orm/core';
import { Setting } from '../core/db/setting-entity.ts';

const KEY = 'admissions_enabled';

export async function admissionsEnabled(em: EntityManager): Promise<boolean> {
  const setting = await em.findOne(Setting, { key: KEY });
  return setting?.value !== false;
}

export async function setAdmissions(em: EntityManager, enabled: boolean): Promise<void> {
  await em.upsert(Setting, { key: KEY, value: enabled, updatedAt: new Date() });
}
