/**
 * The save page's HTML (`/save/:id`): what saving keeps, in words, and the one step the person is at —
 * sign in, choose to save, or done. No script; every value is escaped.
 */
import type { Scan } from '../../gen/skinmatch/v1/scan_types_pb.ts';
import type { ErrorReason } from '../../services/shared/errors.ts';
import { escapeHtml, noticePage, page } from '../oauth/pages.ts';
import type { SignInOutcome } from '../oauth/sign-in.ts';

/** What each measure is called on the page; a score runs 0–100, higher meaning healthier skin. */
const MEASURE_WORDS: Readonly<Record<string, string>> = {
  acne: 'Blemishes',
  redness: 'Redness',
  dark_spots: 'Dark spots',
  uneven_tone: 'Even tone',
  wrinkles: 'Fine lines and wrinkles',
  pores: 'Pores',
  texture: 'Texture',
  dark_circles: 'Dark circles',
  oiliness: 'Oiliness',
  dullness: 'Radiance',
};

export function measureWords(measure: string): string {
  return MEASURE_WORDS[measure] ?? measure.replaceAll('_', ' ');
}

/** One page for an unknown, expired or deleted scan: the same bytes whatever the reason. */
export const SAVE_NOT_FOUND_PAGE = page(
  'This link does not work',
  '<p>The link is wrong, has expired, or the scan was deleted. Ask your assistant for a new link.</p>',
);

function messagePage(title: string, message: string, id = 'message'): string {
  return page(title, `<p id="${id}">${escapeHtml(message)}</p>`);
}

/**
 * The page for a sign-in on the save page that did not sign the person in: what happened, in words, that
 * nothing was saved, and the way back to the scan (`back`) to try again or with another provider.
 */
export function signInEndedPage(
  outcome: Exclude<SignInOutcome, { kind: 'signed_in' }>,
  provider: string,
  back: string,
): { status: number; html: string } {
  const [status, text] = {
    refused: [200, `You cancelled signing in with ${provider}. Nothing was saved.`],
    anonymous: [
      403,
      `${provider} signed you in anonymously, and an anonymous sign-in cannot keep a scan. ` +
        'Nothing was saved. To save it, sign in with a named account.',
    ],
    failed: [502, `Signing in with ${provider} did not work. Nothing was saved; you can try again.`],
  }[outcome.kind] as [number, string];
  return {
    status,
    html: noticePage('You are not signed in', text, [{ href: back, name: 'Back to your scan' }]),
  };
}

/** The page for each refusal core can give, with its status. */
export const SAVE_REFUSALS: Partial<Record<ErrorReason, { status: number; html: string }>> = {
  not_found: { status: 404, html: SAVE_NOT_FOUND_PAGE },
  invalid_input: { status: 404, html: SAVE_NOT_FOUND_PAGE },
  // Any browser but the one that agreed on the upload page: nothing about the scan is shown.
  not_consenting_browser: {
    status: 403,
    html: messagePage(
      'Open this link where you agreed',
      'This link works only in the browser where you agreed to the scan on its upload page. ' +
        'Open it there to save the scan to your account.',
      'refusal',
    ),
  },
  scan_not_ready: {
    status: 409,
    html: messagePage(
      'Your scan is not finished',
      'Only a finished scan can be saved. Come back to this link when your assistant says it is complete.',
    ),
  },
  saved_to_another_account: {
    status: 409,
    html: messagePage(
      'Already saved',
      'This scan is already saved to another account; it cannot be saved again.',
    ),
  },
};

export const SAVE_FAILED = {
  status: 503,
  html: messagePage(
    'Something went wrong',
    'The service cannot do this right now. Wait a minute, then try again.',
  ),
};

export const FOREIGN_POST_PAGE = messagePage(
  'This request was refused',
  'It did not come from the save page. Open the link again.',
);

export const NO_SUCH_PROVIDER_PAGE = messagePage(
  'No such sign-in provider',
  'Go back and choose one of the listed providers.',
);

/** The person's step on the page. */
export type SaveStep =
  | { readonly kind: 'sign_in'; readonly providers: readonly { href: string; name: string }[] }
  | { readonly kind: 'choose'; readonly action: string; readonly signedInWith: string }
  | { readonly kind: 'saved'; readonly signedInWith: string }
  | { readonly kind: 'saved_elsewhere'; readonly signedIn: boolean };

export function savePage(scan: Scan, step: SaveStep): string {
  const scores = scan.scores
    .map(
      (s) =>
        `<li data-measure="${escapeHtml(s.measure)}">${escapeHtml(measureWords(s.measure))}: ` +
        `${s.score} out of 100</li>`,
    )
    .join('');
  const concerns =
    scan.concerns.length === 0
      ? '<p id="concerns">No concern stood out.</p>'
      : `<p>What stood out:</p><ul id="concerns">${scan.concerns
          .map((c) => `<li>${escapeHtml(measureWords(c))}</li>`)
          .join('')}</ul>`;
  const what =
    '<p>Saving keeps your skin scan in your skinmatch account, so you and the apps you allow can see it ' +
    'later. The photo itself was deleted after the analysis and is not saved.</p>' +
    `<h2>What will be saved</h2><p>Scores (higher means healthier-looking skin):</p><ul id="scores">${scores}</ul>` +
    `${concerns}<p class="note">These are cosmetic estimates, not a diagnosis.</p>`;
  return page(step.kind === 'saved' ? 'Your scan is saved' : 'Save your skin scan', what + stepHtml(step));
}

function stepHtml(step: SaveStep): string {
  switch (step.kind) {
    case 'sign_in':
      return (
        '<p id="step">Sign in to choose whether to save it:</p>' +
        step.providers
          .map(
            (p) => `<a class="button" href="${escapeHtml(p.href)}">Continue with ${escapeHtml(p.name)}</a>`,
          )
          .join('')
      );
    case 'choose':
      return (
        `<p id="step">Signed in with ${escapeHtml(step.signedInWith)}. Nothing is saved until you choose to. ` +
        'If you do not, the scan is deleted seven days after it was started.</p>' +
        `<form method="post" action="${escapeHtml(step.action)}">` +
        '<button class="primary" name="decision" value="save" type="submit">Save to my account</button></form>'
      );
    case 'saved':
      return `<p id="step" role="status">This scan is saved to the account you signed in to with ${escapeHtml(step.signedInWith)}.</p>`;
    case 'saved_elsewhere':
      // Before sign-in the account it belongs to may be the person's own: say no more than that it is saved.
      return step.signedIn
        ? '<p id="step" role="status">This scan is already saved to another account; it cannot be saved again.</p>'
        : '<p id="step" role="status">This scan is already saved to an account.</p>';
  }
}
