/**
 * Reading one scan by id, the statement behind every GetScan poll, RecommendProducts and token check: one
 * named (prepared) primary-key SELECT on the shared pool, no ORM in between. The ORM reads the same row
 * as a `Scan` entity where it writes it; both have the shape of `ScanRecord`.
 */
import type { PlainSql } from '../core/db/plain-sql.ts';
import { epochMs } from '../core/db/plain-sql.ts';
import type { Scan } from '../core/db/scan-entity.ts';

export type ScanRecord = Pick<
  Scan,
  | 'id'
  | 'tokenHash'
  | 'status'
  | 'stage'
  | 'progress'
  | 'failureReason'
  | 'scores'
  | 'concerns'
  | 'createdAt'
  | 'updatedAt'
  | 'expiresAt'
  | 'completedAt'
  | 'version'
  | 'accountId'
>;

/** The columns of a `ScanRecord`, for a select or an insert's `returning`. */
export const SCAN_COLUMNS = `id, token_hash as "tokenHash", status, stage, progress,
    failure_reason as "failureReason", scores, concerns, ${epochMs('created_at', 'createdAt')},
    ${epochMs('updated_at', 'updatedAt')}, ${epochMs('expires_at', 'expiresAt')},
    ${epochMs('completed_at', 'completedAt')}, version, account_id as "accountId"`;

const SCAN_BY_ID = `select ${SCAN_COLUMNS} from scans where id = $1`;

export interface ScanRow extends Omit<ScanRecord, 'createdAt' | 'updatedAt' | 'expiresAt' | 'completedAt'> {
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly expiresAt: number;
  readonly completedAt: number | null;
}

export async function findScan(sql: PlainSql, runId: string): Promise<ScanRecord | null> {
  const { rows } = await sql.query<ScanRow>({ name: 'scan_by_id', text: SCAN_BY_ID, values: [runId] });
  const row = rows[0];
  return row ? scanRecord(row) : null;
}

/** A row selected as SCAN_COLUMNS as a `ScanRecord`. */
export function scanRecord(row: ScanRow): ScanRecord {
  return {
    ...row,
    createdAt: new Date(row.createdAt),
    updatedAt: new Date(row.updatedAt),
    expiresAt: new Date(row.expiresAt),
    completedAt: row.completedAt === null ? null : new Date(row.completedAt),
  };
}
