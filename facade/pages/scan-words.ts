/**
 * The upload page's words: for each refusal, the HTTP status it is answered with and what the person
 * should do about it; for each reason an analysis failed, what to change in the next photo. The reasons are
 * core's (services/shared/errors.ts, services/shared/failure-messages.ts); only the words are the page's.
 */
import {
  ANALYSIS_UNAVAILABLE,
  FAILURE_MESSAGES,
  PHOTO_UNPROCESSABLE,
} from '../../services/shared/failure-messages.ts';

export interface Refusal {
  readonly status: number;
  readonly message: string;
}

/** What the page may be refused, with the words it shows. `limit` fills in the numbers. */
export const REFUSALS = {
  forbidden_origin: {
    status: 403,
    message: 'This request did not come from the scan page. Open the link you were given and try again.',
  },
  invalid_request: {
    status: 400,
    message: 'The page sent something the service cannot read. Reload the page and try again.',
  },
  challenge_failed: {
    status: 403,
    message: 'The check that you are a person did not succeed. Run the check again, then agree.',
  },
  cookies_blocked: {
    status: 403,
    message:
      'This browser does not keep cookies for this page, and the page needs one to know that the photo comes from you. Allow cookies for this site, reload the page and agree again. Nothing was recorded.',
  },
  consent_required: {
    status: 403,
    message: 'Agree to how your photo is used first; nothing is taken before you do.',
  },
  consent_taken: {
    status: 403,
    message:
      'This scan is already in the hands of another browser. Finish it there, or ask your assistant for a new link.',
  },
  not_consenting_browser: {
    status: 403,
    message:
      'Only the browser that agreed to this scan can send its photo, follow it or delete it. Use that browser, or ask your assistant for a new link.',
  },
  upload_closed: {
    status: 409,
    message: 'This scan is complete and takes no more photos. Return to your assistant.',
  },
  not_an_image: {
    status: 415,
    message:
      'This file is not a photo the service can use. Take a new photo, or choose a JPEG, PNG or WebP one.',
  },
  photo_too_large: {
    status: 413,
    message: 'The photo is larger than {max}. Take a new photo, or choose a smaller one.',
  },
  photo_too_many_pixels: {
    status: 413,
    message: 'The photo has too many pixels to be checked safely. Take a new photo, or choose a smaller one.',
  },
  rate_limited: {
    status: 429,
    message: 'Too many photos were sent. Wait {wait}, then try again.',
  },
  not_found: {
    status: 404,
    message: 'This scan does not exist or has expired. Ask your assistant for a new link.',
  },
  unavailable: {
    status: 503,
    message: 'The service cannot take this just now. Try again in a minute.',
  },
} as const satisfies Record<string, Refusal>;

/** `invalid_request` when the page showed a consent text that is no longer the current one. */
export const CONSENT_OUTDATED_WORDS =
  'The consent text has changed since this page was opened. Reload the page and read it again.';

/** `rate_limited` on a progress stream past a bound of facade/pages/page-streams.ts. */
export function streamBoundWords(bound: 'scan' | 'network', max: { perScan: number; perNetwork: number }) {
  return bound === 'scan'
    ? `This scan’s progress is already followed in ${max.perScan} tabs or windows, as many as it may be. Close one of them, then reload this page.`
    : `Pages on this network already follow ${max.perNetwork} progress streams, as many as they may. Close some of them, then reload this page.`;
}

export type RefusalReason = keyof typeof REFUSALS;

export function isRefusalReason(value: string): value is RefusalReason {
  return Object.hasOwn(REFUSALS, value);
}

/** The words of a refusal, with `{max}` (bytes) and `{wait}` (seconds) filled in. */
export function refusalWords(reason: RefusalReason, limit: { maxBytes?: number; waitSeconds?: number } = {}) {
  return REFUSALS[reason].message
    .replace('{max}', formatBytes(limit.maxBytes ?? 0))
    .replace('{wait}', formatWait(limit.waitSeconds ?? 60));
}

/** What the person should do after an analysis failed for `reason` (general words for a reason new to the page). */
export function failureWords(reason: string): string {
  if (reason === ANALYSIS_UNAVAILABLE) {
    return 'Nothing is wrong with your photo: our analysis service was not available. Send the same photo again in a few minutes.';
  }
  if (reason === PHOTO_UNPROCESSABLE) {
    return 'The service could not analyse this photo. Take another photo and send it.';
  }
  return Object.hasOwn(FAILURE_MESSAGES, reason)
    ? FAILURE_MESSAGES[reason as keyof typeof FAILURE_MESSAGES]
    : 'Your photo could not be analysed. Take a new photo and send it again.';
}

function formatBytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return Number.isInteger(mb) ? `${mb} MB` : `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

function formatWait(seconds: number): string {
  if (seconds < 90) return `${seconds} seconds`;
  return `${Math.ceil(seconds / 60)} minutes`;
}
