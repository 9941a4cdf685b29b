/**
 * How a stored scan looks to its holder: status, what to do next and when to look again. The mapping is
 * DESIGN.md's lifecycle table.
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
import type { ScanRecord } from './scan-reads.ts';

interface Step {
  readonly status: ScanStatus;
  readonly nextAction: NextAction;
  readonly retryAfterSeconds: number;
}

const STEPS: Record<ScanStatusName, Step> = {
  awaiting_upload: {
    status: ScanStatus.AWAITING_UPLOAD,
    nextAction: NextAction.SHARE_UPLOAD_URL,
    retryAfterSeconds: 5,
  },
  queued: { status: ScanStatus.QUEUED, nextAction: NextAction.POLL, retryAfterSeconds: 2 },
  analyzing: { status: ScanStatus.ANALYZING, nextAction: NextAction.POLL, retryAfterSeconds: 1 },
  complete: { status: ScanStatus.COMPLETE, nextAction: NextAction.RECOMMEND_PRODUCTS, retryAfterSeconds: 0 },
  failed: { status: ScanStatus.FAILED, nextAction: NextAction.ASK_PERSON_TO_RETAKE, retryAfterSeconds: 5 },
};

/** The protobuf status of a stored status name. */
export function scanStatus(status: string): ScanStatus {
  return STEPS[status as ScanStatusName].status;
}

export function isSettled(status: string): boolean {
  return status === 'complete' || status === 'failed';
}

export function toScanMessage(scan: ScanRecord, publicBaseUrl: string): ScanMessage {
  const step = Object.hasOwn(STEPS, scan.status) ? STEPS[scan.status as ScanStatusName] : undefined;
  // A status this code does not know (a newer replica's, a hand edit) is a server fault, logged by the
  // error interceptor and answered as one: never shown as some other state that sends an agent astray.
  if (!step) throw new Error(`scan ${scan.id} has a status this core does not know: "${scan.status}"`);
  return create(ScanMessageSchema, {
    runId: scan.id,
    ...step,
    progress: scan.progress,
    stage: scan.stage,
    failureReason: scan.failureReason ?? '',
    uploadUrl: uploadUrl(publicBaseUrl, scan.id),
    // Saving is for a complete guest scan: one already in an account (started there, or saved) has nothing
    // left to save, and its link would only tell the person to save it again.
    saveUrl: scan.status === 'complete' && scan.accountId === null ? `${publicBaseUrl}/save/${scan.id}` : '',
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
