/**
 * The upload page's states the tests expect, written out here from the spec's rules rather than taken from
 * facade/pages/page-state.ts, so that a change there shows up as a failing test.
 */

/** The consenting browser, before any photo: what its page and its first event show. */
export const AWAITING_PHOTO = {
  status: 'awaiting_upload',
  stage: '',
  progress: 0,
  failure_reason: null,
  failure_message: null,
  consented: true,
  is_consenting_browser: true,
} as const;

/** Any other browser, whatever the scan's state: only that it is in another browser's hands. */
export const IN_ANOTHER_BROWSER = { ...AWAITING_PHOTO, is_consenting_browser: false } as const;
