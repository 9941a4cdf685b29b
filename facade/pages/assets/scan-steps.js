// The upload page's steps (plain browser JavaScript, no build step): which step a scan's state shows, and the
// status line for it. The one source of the rule: the browser runs this file (scan-page.js) and the server
// imports it to render the first state (facade/pages/scan-html.ts; the types are in scan-steps.d.ts).

/** The step a state shows: consent, elsewhere, photo, progress, done or failed. */
export function stepOf(s) {
  if (!s.consented) return 'consent';
  if (!s.is_consenting_browser) return 'elsewhere';
  if (s.status === 'awaiting_upload') return 'photo';
  if (s.status === 'queued' || s.status === 'analyzing') return 'progress';
  return s.status === 'complete' ? 'done' : 'failed';
}

export const percentOf = (value) => Math.max(0, Math.min(100, Math.round(Number(value) || 0)));

/** The status line for a state, in the page's words (its data-words). */
export function statusWords(s, words) {
  switch (stepOf(s)) {
    case 'photo':
      return words.awaitingPhoto;
    case 'progress':
      if (s.status === 'queued') return s.stage === 'retrying' ? words.retrying : words.queued;
      return `${words.stages[s.stage] ?? words.analyzing}: ${percentOf(s.progress)}%`;
    case 'done':
      return words.complete;
    case 'failed':
      return s.failure_message ?? words.failedFallback;
    default:
      return '';
  }
}
