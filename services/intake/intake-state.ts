/**
 * How a scan looks on its upload page: where it is in its lifecycle and who consented; never scores, never
 * a token. A failure reason is shown so the page can say what to do about it.
 */
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { type IntakeState, IntakeStateSchema } from '../../gen/skinmatch/v1/intake_pb.ts';
import type { ScanRecord } from '../scan/scan-reads.ts';
import { scanStatus } from '../scan/scan-view.ts';
import { CONSENT_VERSION } from './consent.ts';

export interface Consent {
  /** The version agreed to, or null while nobody has consented. */
  readonly version: string | null;
  readonly byThisBrowser: boolean;
}

type Lifecycle = Pick<ScanRecord, 'id' | 'status' | 'stage' | 'progress' | 'failureReason' | 'expiresAt'>;

export function toIntakeState(scan: Lifecycle, consent: Consent): IntakeState {
  return create(IntakeStateSchema, {
    runId: scan.id,
    status: scanStatus(scan.status),
    stage: scan.stage,
    progress: scan.progress,
    failureReason: scan.failureReason ?? '',
    consented: consent.version !== null,
    isConsentingBrowser: consent.byThisBrowser,
    expiresAt: timestampFromDate(scan.expiresAt),
    consentVersion: consent.version ?? CONSENT_VERSION,
  });
}
