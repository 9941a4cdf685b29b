// The upload page's script (/scan/:id): consent with the ALTCHA widget, the photo made smaller in the
// browser and sent with a progress bar, then the analysis followed live from /scan/:id/events. Plain browser
// JavaScript, no build step. The server renders the first state; render() moves between the steps with the
// same rule (scan-steps.js, which the server imports too); every word shown comes from the page's data-words.
import { percentOf, statusWords, stepOf } from './scan-steps.js';
import { isHeic, preparePhoto, sendPhoto } from './scan-upload.js';

const main = document.getElementById('scan');
const words = JSON.parse(main.dataset.words);
const base = main.dataset.base;
const maxBytes = Number(main.dataset.maxBytes);
const consentVersion = main.dataset.consentVersion;
let state = JSON.parse(main.dataset.state);
let events = null;
/** The server refused the progress stream: the page looks at the scan instead (see lookAgainLater). */
let refused = false;
let busy = false;
/** The photo being sent: its `done` and `cancel()` (scan-upload.js). */
let sending = null;
let deleting = false;
/** How many states the page has shown: a state asked for is not shown over a newer one. */
let renders = 0;
/**
 * One timer asks for the scan again (GET /state) while nothing else would tell the page that it moved on.
 * The rule, by the step shown:
 * - progress, its stream refused (too many open, the service busy): every POLL_MS, hidden or not, until the
 *   step changes (the stream tells of every change while it is open: no look then);
 * - photo or failed (LOOKED_AT): the scan can move on without this page (its photo sent before a reload, the
 *   server still storing it, or by another tab of this browser): after LOOK_FIRST_MS, then twice as long each
 *   time up to LOOK_MAX_MS; not while the page is hidden (it asks again when shown);
 * - any other step: no look.
 * The delay starts over when the step changes; a look is skipped while a photo is sent or the scan deleted
 * (their own answers are newer).
 */
const POLL_MS = 3000;
const LOOKED_AT = new Set(['photo', 'failed']);
const LOOK_FIRST_MS = 2000;
const LOOK_MAX_MS = 30_000;
let look = { timer: null, step: null, delay: 0 };

const $ = (id) => document.getElementById(id);

// The widget's "external" build ships no workers of its own: register the PBKDF2 one, served beside this file.
if (globalThis.$altcha) {
  const worker = new URL('altcha-pbkdf2-worker.js', import.meta.url);
  for (const algorithm of ['PBKDF2/SHA-256', 'PBKDF2/SHA-384', 'PBKDF2/SHA-512']) {
    globalThis.$altcha.algorithms.set(algorithm, () => new Worker(worker));
  }
}

const SECTIONS = {
  consent: ['consent-step'],
  elsewhere: ['elsewhere-step'],
  photo: ['photo-step', 'delete-step'],
  progress: ['progress-step', 'delete-step'],
  done: ['done-step', 'delete-step'],
  failed: ['failed-step', 'photo-step', 'delete-step'],
  gone: ['gone-step'],
};
const ALL = [...new Set(Object.values(SECTIONS).flat())];

function show(step) {
  const visible = SECTIONS[step];
  for (const id of ALL) $(id).hidden = !visible.includes(id);
  main.dataset.step = step;
}

function setStatus(text) {
  const status = $('status');
  if (status.textContent !== text) status.textContent = text;
}

function render(next) {
  renders += 1;
  const before = stepOf(state);
  state = next;
  const step = stepOf(state);
  show(step);
  setStatus(statusWords(state, words));
  $('analysis-progress').value = state.status === 'analyzing' ? percentOf(state.progress) : 0;
  $('analysis-progress').textContent = `${percentOf(state.progress)}%`;
  $('photo-title').textContent = step === 'failed' ? 'Try again' : 'Your photo';
  if (step !== before) $(`${step}-title`)?.focus();
  if (step === 'progress') watch();
  else stopWatching();
  lookAgainLater();
}

function alertWith(message) {
  $('alert').textContent = message;
  $('consent-check').ariaInvalid = String(message === words.needConsent);
}

function showGone(message) {
  stopWatching();
  $('gone-message').textContent = message;
  if (message === words.deleted) $('gone-title').textContent = words.deletedTitle;
  setStatus('');
  show('gone');
  $('gone-title').focus();
  lookAgainLater(); // none at 'gone'
}

async function postJson(path, body) {
  try {
    const response = await fetch(`${base}/${path}`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json().catch(() => null) };
  } catch {
    return { status: 0, body: null };
  }
}

/** Refusals that mean the scan moved on elsewhere (another tab, another browser, cookies cleared). */
const STATE_CHANGED = new Set([
  'upload_closed',
  'not_consenting_browser',
  'consent_taken',
  'consent_required',
]);

/**
 * The scan as the server sees it for this browser now, shown: the page is only as fresh as the last state it
 * was sent. An answer overtaken by a newer state (a photo's answer, an event) is dropped.
 */
async function refresh() {
  const asked = renders;
  const wasBusy = busy;
  try {
    const response = await fetch(`${base}/state`, {
      credentials: 'same-origin',
      cache: 'no-store',
      signal: AbortSignal.timeout(10_000),
    });
    const body = response.ok ? await response.json().catch(() => null) : null;
    // Overtaken, or a photo or consent began meanwhile (its own answer is newer).
    if (asked !== renders || (busy && !wasBusy) || main.dataset.step === 'gone') return;
    if (response.status === 404) showGone(words.gone);
    else if (body?.state) render(body.state);
  } catch {
    // Offline: the page stays as it is; the next look at it asks again.
  }
}

/** After a refusal: the state behind it, when it says the scan changed elsewhere. */
function refreshIfChanged(result) {
  if (STATE_CHANGED.has(result.body?.error)) return refresh();
}

/** The server's words for a refusal, or ours when there are none (offline, a proxy's error page). */
function refusalWords(result) {
  if (result.status === 404) return words.gone;
  return result.body?.message ?? words.network;
}

// Consent: the box ticked, the widget's proof of work done (started here if the person has not), then POST.
$('consent-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  if (busy) return;
  alertWith('');
  if (!$('consent-check').checked) {
    alertWith(words.needConsent);
    $('consent-check').focus();
    return;
  }
  busy = true;
  $('consent-submit').disabled = true;
  try {
    const widget = $('challenge');
    let solution = new FormData($('consent-form')).get('altcha');
    if (!solution && typeof widget?.verify === 'function') {
      solution = await widget.verify().then(
        (result) => result?.payload,
        () => null,
      );
    }
    if (!solution) {
      const why = await whyNoSolution(widget);
      if (why === null) showGone(words.gone);
      else alertWith(why);
      return;
    }
    const result = await postJson('consent', {
      consent_version: consentVersion,
      challenge_solution: solution,
    });
    if (result.status === 200 && result.body?.state) {
      render(result.body.state);
    } else if (result.status === 404) {
      showGone(words.gone);
    } else {
      alertWith(refusalWords(result));
      widget?.reset?.(); // a solution is good once: a new one for the next try
      await refreshIfChanged(result);
    }
  } finally {
    busy = false;
    $('consent-submit').disabled = false;
  }
});

/**
 * Why the widget gave no solution, in words that are true: still working; the widget never loaded; or its
 * challenge could not be fetched — asked again here to learn why (null: the scan is gone). The widget is
 * reset so that the next tap on the button runs the check afresh.
 */
async function whyNoSolution(widget) {
  if (typeof widget?.verify !== 'function') return words.pageIncomplete;
  if (widget.getState?.() === 'verifying') return words.needChallenge;
  widget.reset?.();
  try {
    const response = await fetch(`${base}/challenge`, { credentials: 'same-origin', cache: 'no-store' });
    if (response.status === 404) return null;
    if (!response.ok) return (await response.json().catch(() => null))?.message ?? words.challengeFailed;
    return words.challengeFailed;
  } catch {
    return words.network;
  }
}

async function choosePhoto(input) {
  const file = input.files?.[0];
  input.value = ''; // choosing the same file again is a new try
  if (!file || busy) return;
  busy = true;
  alertWith('');
  for (const each of [$('selfie'), $('file')]) each.disabled = true;
  // A photo refused before or by the server: the status goes back to the step's own words.
  const refused = (message) => {
    setStatus(statusWords(state, words));
    alertWith(message);
  };
  let result = null;
  try {
    setStatus(words.preparing);
    const photo = await preparePhoto(file);
    if (!photo) return refused(isHeic(file) ? words.heic : words.unreadable);
    if (photo.size > maxBytes) return refused(words.tooLarge);
    $('upload-progress').value = 0;
    $('upload').hidden = false;
    setStatus(words.uploading);
    sending = sendPhoto(`${base}/photo`, photo, (percent) => {
      $('upload-progress').value = percent;
    });
    result = await sending.done;
    if (result.status === 202 && result.body?.state) {
      $('upload-progress').value = 100;
      render(result.body.state);
    } else if (result.status === 404) {
      showGone(words.gone);
    } else if (result.cancelled) {
      refused(deleting ? '' : words.uploadCancelled);
    } else {
      refused(refusalWords(result));
    }
  } finally {
    busy = false;
    sending = null;
    $('upload').hidden = true;
    for (const each of [$('selfie'), $('file')]) each.disabled = false;
  }
  if (!result || result.status === 202 || deleting) return;
  // No answer (the photo may have arrived all the same), or refused because the scan moved on: what is true now.
  if (result.status === 0) await refresh();
  else await refreshIfChanged(result);
}

for (const id of ['selfie', 'file']) $(id).addEventListener('change', (e) => choosePhoto(e.target));
$('upload-cancel').addEventListener('click', () => sending?.cancel());

// Live progress: core's WatchIntake stream as server-sent events; it ends after complete or failed, and
// after a while with `renew` (the page opens a new one). Refused, the page looks at the scan instead.
function watch() {
  if (events || refused) return;
  events = new EventSource(`${base}/events`);
  events.addEventListener('state', (e) => {
    const next = JSON.parse(e.data);
    if (next.status === 'complete' || next.status === 'failed') stopWatching();
    render(next);
  });
  events.addEventListener('gone', () => showGone(words.gone));
  events.addEventListener('renew', () => {
    stopWatching();
    watch();
  });
  const source = events;
  events.addEventListener('error', () => {
    if (source !== events) return; // closed by the page
    // CLOSED: the server refused the stream. Otherwise the connection dropped and the browser is trying
    // again by itself: the person is told, until the next state shows it is back.
    if (source.readyState === EventSource.CLOSED) {
      stopWatching();
      explainRefusedStream();
    } else {
      setStatus(words.reconnecting);
    }
  });
}

/**
 * Why the server refused the progress stream (EventSource does not tell): asked again, the answer's status
 * read and the stream itself dropped. A scan deleted or expired while the phone slept is gone, not offline;
 * one that moved on (cookies cleared meanwhile) shows the step that is true now. Otherwise (too many
 * streams open, the service busy, offline) the page follows the scan by asking for it every few seconds.
 */
async function explainRefusedStream() {
  const ask = new AbortController();
  let body = null;
  try {
    const response = await fetch(`${base}/events`, { credentials: 'same-origin', signal: ask.signal });
    if (response.status === 404) return showGone(words.gone);
    body = response.ok ? null : await response.json().catch(() => null);
  } catch {
    // Offline, or the answer cut short: asking for the scan tells more.
  } finally {
    ask.abort();
  }
  setStatus(statusWords(state, words)); // no longer "Reconnecting…"
  if (STATE_CHANGED.has(body?.error)) {
    alertWith(body.message);
    return refresh();
  }
  if (stepOf(state) === 'progress' && !events) {
    refused = true;
    lookAgainLater();
  }
}

function stopWatching() {
  events?.close();
  events = null;
  refused = false;
}

// Deleting takes precedence over a photo being sent: once confirmed, the send is stopped first.
$('delete-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  if (deleting || !window.confirm(words.confirmDelete)) return;
  deleting = true;
  $('delete-button').disabled = true;
  try {
    if (sending) {
      sending.cancel();
      await sending.done;
    }
    const result = await postJson('delete', {});
    if (result.status === 200 || result.status === 404) showGone(words.deleted);
    else {
      alertWith(refusalWords(result));
      await refreshIfChanged(result);
    }
  } finally {
    deleting = false;
    $('delete-button').disabled = false;
  }
});

// Back to this page (another tab, the phone unlocked, back online): the scan may have moved on meanwhile.
const recheck = () => !busy && !deleting && main.dataset.step !== 'gone' && refresh();
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible') recheck();
  lookAgainLater();
});
window.addEventListener('pageshow', (event) => event.persisted && recheck());
window.addEventListener('online', recheck);

/** How the page looks at the scan at a step, by the rule above: the first delay and its growth, or null. */
function lookRule(step) {
  if (step === 'progress') return refused ? { first: POLL_MS, grows: 1 } : null;
  if (LOOKED_AT.has(step) && document.visibilityState !== 'hidden') return { first: LOOK_FIRST_MS, grows: 2 };
  return null;
}

/** The next look at the scan (the one timer: an earlier one is dropped), or none. */
function lookAgainLater() {
  clearTimeout(look.timer);
  const step = main.dataset.step;
  const rule = lookRule(step);
  if (!rule) {
    look = { timer: null, step: null, delay: 0 };
    return;
  }
  if (look.step !== step) look = { timer: null, step, delay: rule.first };
  const { delay } = look;
  look.timer = setTimeout(async () => {
    look.delay = Math.min(delay * rule.grows, LOOK_MAX_MS);
    if (!busy && !deleting) await refresh();
    if (look.step === main.dataset.step) lookAgainLater();
  }, delay);
}

if (stepOf(state) === 'progress') watch();
lookAgainLater();
// Listening now: the controls the page was sent disabled can be used (see scan-html.ts).
for (const id of ['consent-submit', 'selfie', 'file', 'delete-button']) $(id).disabled = false;
$('not-loaded').remove(); // the notice for a script that never started (scan-page.css)
