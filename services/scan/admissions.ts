/**
 * Whether new scans are admitted. Two switches, both in the database so that every core replica sees them
 * alike: the operator's (`npm run admin -- admissions off|on`) and the backlog's, which the admissions
 * governor (admissions-governor.ts) sets while the analysis queue is over its bound. New scans are admitted
 * only while neither is off; StartScan fails with `admissions_paused` otherwise. Reading and deleting
 * scans, and the catalog, keep working.
 */
import type { EntityManager } from '@mikro-orm/core';
import { Setting } from '../core/db/setting-entity.ts';

const OPERATOR_KEY = 'admissions_enabled';
const BACKLOG_KEY = 'admissions_backlog_paused';

export interface Admissions {
  /** New scans are admitted: the operator's switch is on and the backlog is not over its bound. */
  readonly enabled: boolean;
  readonly pausedByOperator: boolean;
  readonly pausedByBacklog: boolean;
}

export async function admissions(em: EntityManager): Promise<Admissions> {
  const settings = await em.find(Setting, { key: { $in: [OPERATOR_KEY, BACKLOG_KEY] } });
  const value = (key: string) => settings.find((s) => s.key === key)?.value;
  const pausedByOperator = value(OPERATOR_KEY) === false;
  const pausedByBacklog = value(BACKLOG_KEY) === true;
  return { enabled: !pausedByOperator && !pausedByBacklog, pausedByOperator, pausedByBacklog };
}

export async function admissionsEnabled(em: EntityManager): Promise<boolean> {
  return (await admissions(em)).enabled;
}

/** The operator's switch. */
export async function setAdmissions(em: EntityManager, enabled: boolean): Promise<void> {
  await em.upsert(Setting, { key: OPERATOR_KEY, value: enabled, updatedAt: new Date() });
}

/** The backlog's switch (the admissions governor's). */
export async function setBacklogPaused(em: EntityManager, paused: boolean): Promise<void> {
  await em.upsert(Setting, { key: BACKLOG_KEY, value: paused, updatedAt: new Date() });
}
