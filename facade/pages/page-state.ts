/** Core's IntakeState as the JSON the upload page reads (`PageState`, rendered by scan-html.ts). */
import type { IntakeState } from '../../gen/skinmatch/v1/intake_pb.ts';
import { ScanStatus } from '../../gen/skinmatch/v1/scan_types_pb.ts';
import type { PageState } from './scan-html.ts';
import { failureWords } from './scan-words.ts';

const STATUS: Partial<Record<ScanStatus, PageState['status']>> = {
  [ScanStatus.AWAITING_UPLOAD]: 'awaiting_upload',
  [ScanStatus.QUEUED]: 'queued',
  [ScanStatus.ANALYZING]: 'analyzing',
  [ScanStatus.COMPLETE]: 'complete',
  [ScanStatus.FAILED]: 'failed',
};

/**
 * What a browser other than the consenting one is told: that the scan is in another browser's hands, nothing
 * of its progress or outcome (the page renders this too, whatever state it is given).
 */
export const ANOTHER_BROWSERS: PageState = {
  status: 'awaiting_upload',
  stage: '',
  progress: 0,
  failure_reason: null,
  failure_message: null,
  consented: true,
  is_consenting_browser: false,
};

/**
 * The page's state for this browser. A party holding only the link sees no progress: once another browser
 * has consented, it learns that and nothing more. A status this façade has no name for (core newer than
 * the façade) is a fault, never a guess.
 */
export function toPageState(state: IntakeState | undefined): PageState {
  const status = state && STATUS[state.status];
  if (!state || !status)
    throw new Error(`core sent an intake state this façade cannot show: ${state?.status}`);
  if (state.consented && !state.isConsentingBrowser) return ANOTHER_BROWSERS;
  const failed = status === 'failed';
  return {
    status,
    stage: state.stage,
    progress: state.progress,
    failure_reason: failed ? state.failureReason || null : null,
    failure_message: failed ? failureWords(state.failureReason) : null,
    consented: state.consented,
    is_consenting_browser: state.isConsentingBrowser,
  };
}
