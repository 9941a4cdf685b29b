/**
 * The upload page's HTML (`/scan/:id`): what happens to the photo, in plain words, and the one step the
 * person is at — agree, send a photo, wait for the analysis, done or try again. Every step is in the
 * document and all but the current one are `hidden`; the page's script (assets/scan-page.js) moves between
 * them with the same rule (`stepOf` and `statusWords`, from assets/scan-steps.js: the server imports the file
 * the browser runs) and the words it finds in `data-words`. No inline script or style; every value is
 * escaped. The consent box and the photo pickers are described by #alert (the script marks the box invalid
 * while it says to tick it), so that what is wrong is read with the control it is about. Every control starts
 * `disabled` and the script enables it once it is listening: on a slow connection a tap before then would post
 * the form itself (raw JSON on the screen, a deletion without its confirmation) or drop the chosen photo unseen. Should the script never start (a file of it failed to load on
 * a flaky network, a blocker refused it), the style sheet shows #not-loaded after a while, and says what to do,
 * instead of grey buttons and no word; the script removes it as it enables the controls.
 */
import { escapeHtml } from '../oauth/pages.ts';
import { percentOf, type Step, statusWords, stepOf } from './assets/scan-steps.js';
import { ANOTHER_BROWSERS } from './page-state.ts';
import { ASSET_VERSION } from './scan-assets.ts';

/** The scan as the page shows it (the façade builds it from core's IntakeState). */
export interface PageState {
  readonly status: 'awaiting_upload' | 'queued' | 'analyzing' | 'complete' | 'failed';
  readonly stage: string;
  readonly progress: number;
  readonly failure_reason: string | null;
  /** Words the person can act on, for a failed analysis. */
  readonly failure_message: string | null;
  readonly consented: boolean;
  readonly is_consenting_browser: boolean;
}

export interface ScanPageView {
  readonly runId: string;
  readonly state: PageState;
  readonly consentVersion: string;
  readonly consentText: string;
  /** The photo size bound, checked before sending (on the photo as the page sends it: at most 2048 px). */
  readonly maxBytes: number;
  /** The CSP nonce of this response (the page needs none: no inline script or style). */
  readonly nonce: string;
}

/** The words the page shows; the script reads them from `data-words`, so they are written only here. */
export const PAGE_WORDS = {
  stages: {
    decoding: 'Reading the photo',
    detecting_face: 'Finding your face',
    checking_quality: 'Checking light and focus',
    measuring: 'Measuring your skin',
    scoring: 'Working out the scores',
  } as Record<string, string>,
  queued: 'Your photo is in the queue for analysis.',
  retrying:
    'Your photo is kept. The analysis is briefly unavailable and will start again by itself: keep this page open or come back later.',
  analyzing: 'Analysing your photo',
  complete: 'Done — return to your assistant.',
  failedFallback: 'The photo could not be analysed. Take another photo and try again.',
  uploading: 'Sending your photo',
  preparing: 'Preparing your photo',
  gone: 'This scan no longer exists. Ask your assistant for a new link.',
  // Deleted elsewhere or expired (the page cannot tell which: both are a scan not found), or deleted here.
  goneTitle: 'Scan no longer available',
  deleted: 'The scan is deleted. Your assistant can no longer see it.',
  deletedTitle: 'Scan deleted',
  confirmDelete: 'Delete this scan? Your assistant will no longer be able to see it.',
  needConsent: 'Tick the box to agree first.',
  needChallenge: 'Wait until the check that you are a person is done.',
  challengeFailed:
    'The check that you are a person could not be done. Check that you are online, then tap “Agree and continue” again.',
  pageIncomplete: 'The page did not load completely. Reload it and try again.',
  notLoaded:
    'The page has not finished loading. If the buttons stay grey, check that you are online and reload the page.',
  tooLarge: 'The photo is too large to send. Choose a smaller photo.',
  unreadable: 'This file is not a photo the page can read. Choose a JPEG, PNG or WebP photo.',
  heic: 'This browser cannot open HEIC photos, the format iPhones and some Android phones save in. Use Take a selfie instead, or choose a JPEG, PNG or WebP photo.',
  network: 'The connection failed. Check that you are online, then try again.',
  uploadCancelled: 'Sending stopped. Choose a photo when you are ready.',
  reconnecting: 'Reconnecting… The page lost touch with the analysis and is trying again.',
  sent: 'Photo sent.',
  awaitingPhoto: 'You agreed. Now take or choose a photo of your face.',
};

const ASSET = `/scan/assets/${ASSET_VERSION}`;

/** The widget collects no pointer or keyboard data of its own (its "human interaction signature"). */
const WIDGET_CONFIGURATION = JSON.stringify({ humanInteractionSignature: false });

/** One page for an unknown, expired, deleted or malformed scan id: the same bytes whatever the reason. */
export const SCAN_NOT_FOUND_HTML = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>This link does not work</title><link rel="icon" href="data:,">
<link rel="stylesheet" href="${ASSET}/scan-page.css"></head><body><main>
<h1>This link does not work</h1>
<p>The link is wrong, has expired, or the scan was deleted. Ask your assistant for a new link.</p>
</main></body></html>`;

export function renderScanPage(view: ScanPageView): string {
  const step = stepOf(view.state);
  const state = step === 'elsewhere' ? ANOTHER_BROWSERS : view.state;
  const base = `/scan/${encodeURIComponent(view.runId)}`;
  const shown = (...steps: Step[]) => (steps.includes(step) ? '' : ' hidden');
  const percent = step === 'progress' ? percentOf(state.progress) : 0;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Your skin scan — skinmatch</title><link rel="icon" href="data:,">
<link rel="stylesheet" href="${ASSET}/altcha.css"><link rel="stylesheet" href="${ASSET}/scan-page.css">
<script type="module" src="${ASSET}/altcha.js"></script>
<script type="module" src="${ASSET}/scan-page.js"></script></head><body>
<main id="scan" data-step="${step}" data-base="${escapeHtml(base)}"
 data-max-bytes="${view.maxBytes}" data-consent-version="${escapeHtml(view.consentVersion)}"
 data-state="${escapeHtml(JSON.stringify(state))}" data-words="${escapeHtml(JSON.stringify(PAGE_WORDS))}">
<h1>Your skin scan</h1>
<div id="about"><p>Your assistant asked for a photo of your face to estimate the condition of your skin.</p>
<ul><li>The photo is used once, for a cosmetic estimate.</li>
<li>It is deleted as soon as the analysis ends.</li>
<li>The result is not a medical diagnosis.</li></ul></div>
<p id="status" role="status" aria-live="polite">${escapeHtml(statusWords(state, PAGE_WORDS))}</p>
<p id="alert" role="alert" class="alert"></p>
<noscript><p class="alert">This page needs JavaScript to check that you are a person and to send your photo.</p></noscript>
<p id="not-loaded" class="alert late">${escapeHtml(PAGE_WORDS.notLoaded)}</p>
<section id="consent-step" aria-labelledby="consent-title"${shown('consent')}>
<h2 tabindex="-1" id="consent-title">Agree first</h2>
<form id="consent-form" action="${escapeHtml(base)}/consent" method="post" novalidate>
<p id="consent-text">${escapeHtml(view.consentText)}</p>
<p class="note">Consent text version <span id="consent-version">${escapeHtml(view.consentVersion)}</span></p>
<label class="check" for="consent-check"><input type="checkbox" id="consent-check" name="agree" value="yes"
 aria-describedby="consent-text alert"><span>I agree to the text above</span></label>
<altcha-widget id="challenge" challenge="${escapeHtml(base)}/challenge" name="altcha" type="checkbox"
 configuration="${escapeHtml(WIDGET_CONFIGURATION)}"></altcha-widget>
<button type="submit" class="primary" id="consent-submit" disabled>Agree and continue</button>
</form></section>
<section id="elsewhere-step" aria-labelledby="elsewhere-title"${shown('elsewhere')}>
<h2 tabindex="-1" id="elsewhere-title">Open in another browser</h2>
<p>Someone already agreed to this scan in another browser. Only that browser can send the photo and follow
the analysis. If that was you, open the link there. If that browser no longer knows you (its cookies were
cleared, or it was a private window that is now closed), ask your assistant for a new link.</p></section>
<section id="failed-step" aria-labelledby="failed-title"${shown('failed')}>
<h2 tabindex="-1" id="failed-title">The photo was not analysed</h2>
<p>What went wrong, and what to do, is said above. Send a photo below; it is analysed the same way.</p></section>
<section id="photo-step" aria-labelledby="photo-title"${shown('photo', 'failed')}>
<h2 tabindex="-1" id="photo-title">${step === 'failed' ? 'Try again' : 'Your photo'}</h2>
<p>Face a window or a lamp, look straight at the camera, and make sure only your face is in the picture.
Take off glasses, keep hair off your forehead, and use no filter: the skin they cover or change cannot be
measured. Large photos are fine: the page makes them smaller before sending them.</p>
<div class="choices">
<div class="choice"><input type="file" id="selfie" accept="image/*" capture="user" class="file"
 aria-describedby="alert" disabled>
<label for="selfie" class="button primary">Take a selfie</label></div>
<div class="choice"><input type="file" id="file" accept="image/*" class="file" aria-describedby="alert"
 disabled>
<label for="file" class="button">Choose a photo</label></div></div>
<div id="upload" hidden><label for="upload-progress">Sending your photo</label>
<progress id="upload-progress" max="100" value="0">0%</progress>
<button type="button" id="upload-cancel">Stop sending</button></div></section>
<section id="progress-step" aria-labelledby="progress-title"${shown('progress')}>
<h2 tabindex="-1" id="progress-title">Analysing</h2>
<label for="analysis-progress">Analysis progress</label>
<progress id="analysis-progress" max="100" value="${percent}">${percent}%</progress>
<p class="note">This takes a few seconds. You can leave this page open or return to your assistant.</p></section>
<section id="done-step" aria-labelledby="done-title"${shown('done')}>
<h2 tabindex="-1" id="done-title">Done</h2>
<p>Your photo was analysed and deleted. Return to your assistant: it has your results.</p></section>
<section id="delete-step" aria-labelledby="delete-title"${shown('photo', 'progress', 'done', 'failed')}>
<h2 tabindex="-1" id="delete-title">Changed your mind?</h2>
<form id="delete-form" action="${escapeHtml(base)}/delete" method="post">
<button type="submit" class="danger" id="delete-button" disabled>Delete this scan</button></form></section>
<section id="gone-step" aria-labelledby="gone-title" hidden>
<h2 tabindex="-1" id="gone-title">${escapeHtml(PAGE_WORDS.goneTitle)}</h2><p id="gone-message"></p></section>
</main></body></html>`;
}
