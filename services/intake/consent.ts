/**
 * The consent the upload page asks for. Its text is versioned: the version a person agreed to is recorded on
 * the scan with the time, and a page showing another version is refused. Change the text, change the version.
 */
export const CONSENT_VERSION = '2026-11-23';

export const CONSENT_TEXT =
  'I agree that skinmatch may use this photo of my face once, to estimate the cosmetic condition of my skin. ' +
  'The photo is deleted as soon as the analysis ends; only the scores are kept, for at most seven days ' +
  'unless I save them to an account. The result is a cosmetic estimate, not a medical diagnosis.';
