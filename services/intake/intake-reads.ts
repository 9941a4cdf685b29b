/**
 * Reading a scan as the upload page sees it: its lifecycle, and who consented. Like scan-reads.ts, one
 * prepared primary-key SELECT on the shared pool.
 */
import type { PlainSql } from '../core/db/plain-sql.ts';
import { epochMs } from '../core/db/plain-sql.ts';
import type { ScanRecord } from '../scan/scan-reads.ts';

export interface IntakeRecord
  extends Pick<
    ScanRecord,
    'id' | 'status' | 'stage' | 'progress' | 'failureReason' | 'expiresAt' | 'version'
  > {
  readonly consentVersion: string | null;
  /** The consenting browser's keyed secret hash; null until someone consents. */
  readonly browserHash: string | null;
}

const INTAKE_BY_ID = `select id, status, stage, progress, failure_reason as "failureReason",
    ${epochMs('expires_at', 'expiresAt')}, version, consent_version as "consentVersion",
    browser_hash as "browserHash"
  from scans where id = $1`;

export async function findIntake(sql: PlainSql, runId: string): Promise<IntakeRecord | null> {
  const { rows } = await sql.query<Omit<IntakeRecord, 'expiresAt'> & { expiresAt: number }>({
    name: 'intake_by_id',
    text: INTAKE_BY_ID,
    values: [runId],
  });
  const row = rows[0];
  return row ? { ...row, expiresAt: new Date(row.expiresAt) } : null;
}

/**
 * Records the first consent: only while no browser has consented and the scan has not expired, so two
 * browsers racing cannot both own the scan. True when this call recorded it.
 */
export async function recordConsent(
  sql: PlainSql,
  runId: string,
  consent: { version: string; browserHash: string; at: Date },
): Promise<boolean> {
  const { rowCount } = await sql.query(
    `update scans set consent_version = $2, consented_at = $3, browser_hash = $4
     where id = $1 and browser_hash is null and expires_at > $3`,
    [runId, consent.version, consent.at, consent.browserHash],
  );
  return rowCount === 1;
}
