// The upload page's HTML in each state: the step shown, the consent form's essentials, the photo inputs,
// the words, and nothing the strict CSP would refuse (no inline script or style, no third-party origin).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { stepOf } from '../../facade/pages/assets/scan-steps.js';
import { ASSET_VERSION, ASSETS } from '../../facade/pages/scan-assets.ts';
import {
  type PageState,
  renderScanPage,
  SCAN_NOT_FOUND_HTML,
  type ScanPageView,
} from '../../facade/pages/scan-html.ts';
import { CONSENT_TEXT, CONSENT_VERSION } from '../../services/intake/consent.ts';

const RUN_ID = '0b6f3c1e-2d4a-4f5b-8c9d-1e2f3a4b5c6d';
const FRESH: PageState = {
  status: 'awaiting_upload',
  stage: '',
  progress: 0,
  failure_reason: null,
  failure_message: null,
  consented: false,
  is_consenting_browser: false,
};
const MINE = { ...FRESH, consented: true, is_consenting_browser: true };

function view(state: PageState): ScanPageView {
  return {
    runId: RUN_ID,
    state,
    consentVersion: CONSENT_VERSION,
    consentText: CONSENT_TEXT,
    maxBytes: 10 * 1024 * 1024,
    nonce: 'bm9uY2U=',
  };
}

/** The ids of the page's sections that are not hidden. */
function shownSections(html: string): string[] {
  return [...html.matchAll(/<section id="([a-z-]+)"[^>]*>/g)]
    .filter((m) => !/\shidden[\s>]/.test(m[0]))
    .map((m) => m[1]!);
}

function assertNothingInline(html: string): void {
  for (const tag of html.match(/<script\b[^>]*>/g) ?? [])
    assert.match(tag, /\ssrc="\/scan\/assets\/[0-9a-f]{16}\/[a-z-]+\.js"/);
  assert.doesNotMatch(html, /<script\b[^>]*>[^<]/, 'no inline script');
  assert.doesNotMatch(html, /<style\b|\sstyle=|\son[a-z]+=/i, 'no inline style or event handler');
  assert.doesNotMatch(html, /(src|href)="(https?:)?\/\//, 'nothing from another origin');
}

describe('upload page HTML', () => {
  const cases: [string, PageState, string[]][] = [
    ['awaiting consent', FRESH, ['consent-step']],
    ['consented, awaiting the photo', MINE, ['photo-step', 'delete-step']],
    ['queued', { ...MINE, status: 'queued' }, ['progress-step', 'delete-step']],
    [
      'queued again, retrying',
      { ...MINE, status: 'queued', stage: 'retrying' },
      ['progress-step', 'delete-step'],
    ],
    [
      'analyzing',
      { ...MINE, status: 'analyzing', stage: 'measuring', progress: 65 },
      ['progress-step', 'delete-step'],
    ],
    ['complete', { ...MINE, status: 'complete', progress: 100 }, ['done-step', 'delete-step']],
    [
      'failed',
      {
        ...MINE,
        status: 'failed',
        failure_reason: 'several_faces',
        failure_message: 'More than one face is in the photo. Take a photo of your face alone.',
      },
      ['failed-step', 'photo-step', 'delete-step'],
    ],
    ["in another browser's hands", { ...MINE, is_consenting_browser: false }, ['elsewhere-step']],
  ];

  for (const [name, state, sections] of cases) {
    it(`${name}: shows ${sections.join(', ')} and nothing inline`, () => {
      const html = renderScanPage(view(state));
      assert.deepEqual(shownSections(html), sections);
      assert.match(html, new RegExp(`data-step="${stepOf(state)}"`));
      assertNothingInline(html);
      // Every state says what happens to the photo.
      assert.match(html, /used once, for a cosmetic estimate/);
      assert.match(html, /deleted as soon as the analysis ends/);
      assert.match(html, /not a medical diagnosis/);
      assert.match(html, /<p id="status" role="status" aria-live="polite">/);
      // Every file under this deploy's version (page-assets.ts), none under a plain name.
      const assets = `/scan/assets/${ASSET_VERSION}`;
      assert.ok(html.includes(`<script type="module" src="${assets}/altcha.js"></script>`));
      assert.ok(html.includes(`<script type="module" src="${assets}/scan-page.js"></script>`));
      assert.doesNotMatch(html, /"\/scan\/assets\/[a-z-]+\./);
    });
  }

  it('awaiting consent: an unticked checkbox, the versioned text and the widget on our challenge URL', () => {
    const html = renderScanPage(view(FRESH));
    const checkbox = html.match(/<input type="checkbox" id="consent-check"[^>]*>/)?.[0];
    assert.ok(checkbox);
    assert.doesNotMatch(checkbox, /checked/);
    // The whole row is the label (one tap target; its size is checked in a browser).
    assert.match(
      html,
      /<label class="check" for="consent-check"><input type="checkbox" id="consent-check"[^>]*><span>I agree to the text above<\/span><\/label>/,
    );
    assert.ok(html.includes(`<p id="consent-text">${CONSENT_TEXT}</p>`));
    assert.ok(html.includes(`<span id="consent-version">${CONSENT_VERSION}</span>`));
    assert.ok(html.includes(`data-consent-version="${CONSENT_VERSION}"`));
    assert.ok(
      html.includes(`<altcha-widget id="challenge" challenge="/scan/${RUN_ID}/challenge" name="altcha"`),
    );
  });

  it('the photo step: a selfie input and a file input, images only, labelled', () => {
    const html = renderScanPage(view(MINE));
    // Disabled until the page's script listens (it enables them), so no choice is lost before it does.
    assert.match(
      html,
      /<input type="file" id="selfie" accept="image\/\*" capture="user" class="file"\s+aria-describedby="alert" disabled>/,
    );
    assert.match(html, /<label for="selfie" class="button primary">Take a selfie<\/label>/);
    assert.match(
      html,
      /<input type="file" id="file" accept="image\/\*" class="file" aria-describedby="alert"\s+disabled>/,
    );
    assert.match(html, /<label for="file" class="button">Choose a photo<\/label>/);
    // The bound is on the photo as the page sends it (made smaller first), so no size is named.
    assert.match(html, /Large photos are fine: the page makes them smaller before sending them\./);
    assert.doesNotMatch(html, /MB/);
    assert.match(html, /data-max-bytes="10485760"/);
  });

  it('analyzing: the stage in words and the percent, in the live region and the progress bar', () => {
    const html = renderScanPage(view({ ...MINE, status: 'analyzing', stage: 'measuring', progress: 65 }));
    assert.match(html, /<p id="status" role="status" aria-live="polite">Measuring your skin: 65%<\/p>/);
    assert.match(html, /<progress id="analysis-progress" max="100" value="65">65%<\/progress>/);
  });

  it('queued again while the analysis service is down (stage retrying): the photo is kept, not "in the queue"', () => {
    const html = renderScanPage(view({ ...MINE, status: 'queued', stage: 'retrying', progress: 25 }));
    assert.match(
      html,
      /role="status" aria-live="polite">Your photo is kept\. The analysis is briefly unavailable/,
    );
    const queued = renderScanPage(view({ ...MINE, status: 'queued' }));
    assert.match(queued, /role="status" aria-live="polite">Your photo is in the queue for analysis\.<\/p>/);
  });

  it('complete: "done — return to your assistant"', () => {
    const html = renderScanPage(view({ ...MINE, status: 'complete', progress: 100 }));
    assert.match(html, /role="status" aria-live="polite">Done — return to your assistant\.<\/p>/);
  });

  it('failed: the words the person can act on, and a retake', () => {
    const message = 'More than one face is in the photo. Take a photo of your face alone.';
    const html = renderScanPage(
      view({ ...MINE, status: 'failed', failure_reason: 'several_faces', failure_message: message }),
    );
    assert.ok(html.includes(`<p id="status" role="status" aria-live="polite">${message}</p>`));
    assert.match(html, /<h2 tabindex="-1" id="photo-title">Try again<\/h2>/);
  });

  it("another browser's scan: no consent form, no photo step, no delete", () => {
    const html = renderScanPage(view({ ...MINE, is_consenting_browser: false, status: 'analyzing' }));
    assert.deepEqual(shownSections(html), ['elsewhere-step']);
    assert.match(html, /Someone already agreed to this scan in another browser/);
    assert.doesNotMatch(html, /%<\/p>/, 'no progress for another browser');
    // The state the script starts from says no more than that someone consented.
    const state = JSON.parse(html.match(/data-state="([^"]*)"/)![1]!.replaceAll('&quot;', '"')) as PageState;
    assert.deepEqual(state, { ...FRESH, consented: true });
  });

  it('escapes everything it is given', () => {
    const html = renderScanPage({
      ...view({ ...MINE, status: 'failed', failure_reason: 'x', failure_message: '<b>"x"</b>' }),
      runId: '"><script>',
    });
    assert.doesNotMatch(html, /<b>|"><script>/);
    assert.ok(html.includes('&lt;b&gt;&quot;x&quot;&lt;/b&gt;'));
  });

  it('the 404 page: plain, no script, no word about the scan', () => {
    assert.match(SCAN_NOT_FOUND_HTML, /<title>This link does not work<\/title>/);
    assert.doesNotMatch(SCAN_NOT_FOUND_HTML, /<script/);
    assertNothingInline(SCAN_NOT_FOUND_HTML);
  });

  it('every asset exists on disk with a content type', () => {
    for (const name of [
      'scan-page.js',
      'scan-upload.js',
      'scan-steps.js',
      'photo-orientation.js',
      'scan-page.css',
      'altcha.js',
      'altcha.css',
      'altcha-pbkdf2-worker.js',
    ]) {
      const asset = ASSETS[name];
      assert.ok(asset, name);
      assert.ok(existsSync(asset.path), asset.path);
      assert.match(asset.type, name.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
    }
    // The widget's CSP-friendly build: no styles injected from script.
    assert.match(ASSETS['altcha.js']!.path, /altcha\/dist\/external\//);
    for (const name of ['scan-page.js', 'scan-upload.js', 'scan-steps.js', 'photo-orientation.js'])
      assert.doesNotMatch(readFileSync(ASSETS[name]!.path, 'utf8'), /innerHTML|eval\(/, name);
  });
});
