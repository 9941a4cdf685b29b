/**
 * Proof of access to a scan, shared by every service that takes the scan identity pair. A wrong token and
 * an unknown, expired or deleted scan are one and the same `not_found`, with the same message and the same
 * work done: one lookup by id, one HMAC and one constant-time comparison.
 */
import type { PlainSql } from '../core/db/plain-sql.ts';
import { NOT_FOUND_MESSAGE, serviceError } from '../shared/errors.ts';
import { checkIdentity, type ScanIdentity } from './scan-input.ts';
import { findScan, type ScanRecord } from './scan-reads.ts';
import { tokenMatches } from './token.ts';

export interface ScanAccess {
  readonly pepper: Buffer;
  readonly now: () => Date;
}

export async function authorizeScan(
  sql: PlainSql,
  access: ScanAccess,
  req: ScanIdentity,
): Promise<ScanRecord> {
  const { runId, accessToken } = checkIdentity(req);
  const scan = await findScan(sql, runId);
  const matches = tokenMatches(access.pepper, accessToken, scan?.tokenHash);
  if (!scan || !matches || scan.expiresAt <= access.now()) throw serviceError('not_found', NOT_FOUND_MESSAGE);
  return scan;
}
