import assert from 'node:assert/strict';
import { create } from '@bufbuild/protobuf';
import { toPageState } from '../../facade/pages/page-state.ts';
import { IntakeStateSchema } from '../../gen/skinmatch/v1/intake_pb.ts';
import { ScanStatus } from '../../gen/skinmatch/v1/scan_types_pb.ts';
import { FAILURE_MESSAGES } from '../../services/shared/failure-messages.ts';
import { IN_ANOTHER_BROWSER } from '../support/page-states.ts';

describe('the upload page’s state for a browser', () => {
  const failed = {
    status: ScanStatus.FAILED,
    stage: 'checking_quality',
    progress: 50,
    failureReason: 'too_dark',
    consented: true,
  };

  it('the consenting browser sees the status, stage, percent and the failure in words', () => {
    const state = create(IntakeStateSchema, { ...failed, isConsentingBrowser: true });
    assert.deepEqual(toPageState(state), {
      status: 'failed',
      stage: 'checking_quality',
      progress: 50,
      failure_reason: 'too_dark',
      failure_message: FAILURE_MESSAGES.too_dark,
      consented: true,
      is_consenting_browser: true,
    });
  });

  it('core’s own reasons and a reason new to the page still get words to act on', () => {
    for (const [reason, words] of [
      [
        'analysis_unavailable',
        'Nothing is wrong with your photo: our analysis service was not available. Send the same photo again in a few minutes.',
      ],
      ['photo_unprocessable', 'The service could not analyse this photo. Take another photo and send it.'],
      ['something_new', 'Your photo could not be analysed. Take a new photo and send it again.'],
    ]) {
      const state = create(IntakeStateSchema, {
        ...failed,
        failureReason: reason,
        isConsentingBrowser: true,
      });
      assert.equal(toPageState(state).failure_message, words);
    }
  });

  it('another browser learns only that the scan is in other hands: no status, progress or failure', () => {
    const state = create(IntakeStateSchema, { ...failed, isConsentingBrowser: false });
    assert.deepEqual(toPageState(state), IN_ANOTHER_BROWSER);
  });

  it('a status the façade has no name for is a fault, not a guess', () => {
    const state = create(IntakeStateSchema, { status: 99 as ScanStatus, consented: false });
    assert.throws(() => toPageState(state), /cannot show: 99/);
  });
});
