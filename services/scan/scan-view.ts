/**
 * How a stored scan looks to its reader: status, what to do next and when to look again. The mapping is
 * DESIGN.md's lifecycle table, narrowed to what this reader can actually do (docs/design-notes.md).
 */
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import {
  NextAction,
  type Scan as ScanMessage,
  ScanSchema as ScanMessageSchema,
  ScanStatus,
} from '../../gen/skinmatch/v1/scan_types_pb.ts';
import type { ScanStatusName } from '../core/db/scan-entity.ts';
import { ANALYSIS_UNAVAILABLE } from '../shared/failure-messages.ts';
import type { ScanRecord } from './scan-reads.ts';

interface Step {
  readonly nextAction: NextAction;
  readonly retryAfterSeconds: number;
}

const STATUS: Record<ScanStatusName, ScanStatus> = {
  awaiting_upload: ScanStatus.AWAITING_UPLOAD,
  queued: ScanStatus.QUEUED,
  analyzing: ScanStatus.ANALYZING,
  complete: ScanStatus.COMPLETE,
  failed: ScanStatus.FAILED,
};

const SHARE = { nextAction: NextAction.SHARE_UPLOAD_URL, retryAfterSeconds: 5 };
const RECOMMEND = { nextAction: NextAction.RECOMMEND_PRODUCTS, retryAfterSeconds: 0 };
const RETAKE = { nextAction: NextAction.ASK_PERSON_TO_RETAKE, retryAfterSeconds: 5 };
const NONE = { nextAction: NextAction.NONE, retryAfterSeconds: 0 };
const START_NEW_SCAN = { nextAction: NextAction.START_NEW_SCAN, retryAfterSeconds: 0 };

/** Who reads the scan, and what they can do with it beyond reading. */
export interface Reader {
  /** When the read happens: the token and the upload page both end at the scan's expires_at. */
  readonly now: Date;
  /**
   * The reader proved the scan's token and the scan's one match is not used yet, so recommend_products
   * answers it with products. False for an account's read by run_id alone (it holds no token).
   */
  readonly canMatch: boolean;
}

/**
 * What the reader can do next: DESIGN.md's lifecycle table where it holds, and `none` or `start_new_scan`
 * where the table's action cannot work for this reader (a used match, no token, an expired upload page).
 * A scan failed by our own outage (`analysis_unavailable`) is not the photo's fault: the person is not
 * asked to retake it, only given the link again to send it (the same photo will do) once we are back.
 */
function nextStep(
  status: ScanStatusName,
  failureReason: string | null | undefined,
  open: boolean,
  reader: Reader,
): Step {
  switch (status) {
    case 'awaiting_upload':
      return open ? SHARE : START_NEW_SCAN;
    case 'queued':
      return { nextAction: NextAction.POLL, retryAfterSeconds: 2 };
    case 'analyzing':
      return { nextAction: NextAction.POLL, retryAfterSeconds: 1 };
    case 'complete':
      return open && reader.canMatch ? RECOMMEND : NONE;
    case 'failed':
      if (!open) return START_NEW_SCAN;
      return failureReason === ANALYSIS_UNAVAILABLE ? SHARE : RETAKE;
  }
}

/** The protobuf status of a stored status name. */
export function scanStatus(status: string): ScanStatus {
  if (!Object.hasOwn(STATUS, status)) throw new Error(`a scan status this core does not know: "${status}"`);
  return STATUS[status as ScanStatusName];
}

export function isSettled(status: string): boolean {
  return status === 'complete' || status === 'failed';
}

export function toScanMessage(scan: ScanRecord, publicBaseUrl: string, reader: Reader): ScanMessage {
  const known = Object.hasOwn(STATUS, scan.status) ? (scan.status as ScanStatusName) : undefined;
  // A status this code does not know (a newer replica's, a hand edit) is a server fault, logged by the
  // error interceptor and answered as one: never shown as some other state that sends an agent astray.
  if (!known) throw new Error(`scan ${scan.id} has a status this core does not know: "${scan.status}"`);
  // The upload page (and the save page) answer until the token expires; an account keeps its scan longer.
  const open = scan.expiresAt > reader.now;
  return create(ScanMessageSchema, {
    runId: scan.id,
    status: STATUS[known],
    ...nextStep(known, scan.failureReason, open, reader),
    progress: scan.progress,
    stage: scan.stage,
    failureReason: scan.failureReason ?? '',
    uploadUrl: open ? uploadUrl(publicBaseUrl, scan.id) : '',
    // Saving is for a complete guest scan: one already in an account (started there, or saved) has nothing
    // left to save, and its link would only tell the person to save it again.
    saveUrl:
      open && scan.status === 'complete' && scan.accountId === null ? `${publicBaseUrl}/save/${scan.id}` : '',
    scores: Object.entries(scan.scores ?? {}).map(([measure, score]) => ({ measure, score })),
    concerns: scan.concerns ?? [],
    createdAt: timestampFromDate(scan.createdAt),
    updatedAt: timestampFromDate(scan.updatedAt),
    expiresAt: timestampFromDate(scan.expiresAt),
    completedAt: scan.completedAt ? timestampFromDate(scan.completedAt) : undefined,
  });
}

export function uploadUrl(publicBaseUrl: string, runId: string): string {
  return `${publicBaseUrl}/scan/${runId}`;
}
