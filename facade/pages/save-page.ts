/**
 * The save page behind `save_url`: `/save/:id`. It works only in the browser that consented on the scan's
 * upload page (the `__Host-` consent cookie; core checks its secret against the hash stored on the scan).
 * There the person signs in with one of the upstream providers (a sign-in for this page, not an OAuth
 * grant to any client), sees what will be saved, and chooses to save with a POST from this page (its
 * Origin checked; the consent cookie is SameSite=Strict). Core's AccountService decides everything.
 *
 * GET  /save/:id                      the page for this browser's step
 * GET  /save/:id/sign-in/:provider    off to the upstream provider (back through /oauth/callback/:provider)
 * POST /save/:id                      the person's choice to save
 */
import type { Client } from '@connectrpc/connect';
import type { Context } from 'koa';
import { type AccountService, type OpenSaveResponse, SaveState } from '../../gen/skinmatch/v1/account_pb.ts';
import { errorReason } from '../../services/shared/errors.ts';
import type { Logger } from '../../services/shared/logger.ts';
import { sendPage } from '../oauth/pages.ts';
import type { SignIn } from '../oauth/sign-in.ts';
import { bouncePage, browserSecret, crossSiteNavigation, fromThisOrigin } from './page-security.ts';
import {
  FOREIGN_POST_PAGE,
  NO_SUCH_PROVIDER_PAGE,
  SAVE_FAILED,
  SAVE_NOT_FOUND_PAGE,
  SAVE_REFUSALS,
  type SaveStep,
  savePage,
  signInEndedPage,
} from './save-html.ts';

const SAVE_COOKIE = '__Secure-skinmatch-save';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Who signed in on this scan's save page; a signed cookie on the page's own path. */
interface SaveSession {
  readonly runId: string;
  readonly accountId: string;
  readonly provider: string;
}

export interface SavePageOptions {
  readonly accounts: Client<typeof AccountService>;
  readonly signIn: SignIn;
  readonly publicBaseUrl: string;
  readonly logger: Logger;
}

const SAVE_PAGE = /^\/save\/([^/]+)$/;

export function savePages(options: SavePageOptions) {
  const { accounts, signIn, logger } = options;
  const publicOrigin = new URL(options.publicBaseUrl).origin;
  const routes: [string, RegExp, (ctx: Context, id: string, m: RegExpExecArray) => Promise<void>][] = [
    ['GET', SAVE_PAGE, (ctx, id) => show(ctx, id)],
    ['GET', /^\/save\/([^/]+)\/sign-in\/(\w+)$/, (ctx, id, m) => goUpstream(ctx, id, m[2]!)],
    ['POST', /^\/save\/([^/]+)$/, (ctx, id) => save(ctx, id)],
  ];

  signIn.on('save', (ctx, runId, outcome, upstream) => {
    if (outcome.kind !== 'signed_in') {
      const { status, html } = signInEndedPage(outcome, upstream.provider.name, savePath(runId));
      return sendPage(ctx, status, html);
    }
    const session: SaveSession = { runId, accountId: outcome.accountId, provider: upstream.provider.name };
    signIn.cookies.set(ctx, SAVE_COOKIE, session, savePath(runId));
    // Back from another site: a page of our own moves on, so that the next request is same-site and the
    // browser sends its SameSite=Strict consent cookie with it.
    sendPage(ctx, 200, bouncePage('Signed in', savePath(runId)));
  });

  function session(ctx: Context, runId: string): SaveSession | undefined {
    const found = signIn.cookies.read<SaveSession>(ctx, SAVE_COOKIE);
    return found?.runId === runId ? found : undefined;
  }

  /** Core's view of the scan for this browser (and account), or the refusal page already sent. */
  async function open(ctx: Context, runId: string, accountId: string): Promise<OpenSaveResponse | undefined> {
    try {
      return await accounts.openSave({ runId, browserSecret: browserSecret(ctx), accountId });
    } catch (err) {
      refuse(ctx, err);
      return undefined;
    }
  }

  async function show(ctx: Context, id: string) {
    if (!UUID.test(id)) return sendPage(ctx, 404, SAVE_NOT_FOUND_PAGE);
    // The link tapped in a web chat: without the consent cookie the page would refuse the very browser
    // that agreed. Once through a page of our own, and the browser sends it.
    if (!browserSecret(ctx) && crossSiteNavigation(ctx))
      return sendPage(ctx, 200, bouncePage('Opening your scan', savePath(id)));
    const signedIn = session(ctx, id);
    const opened = await open(ctx, id, signedIn?.accountId ?? '');
    if (!opened) return;
    sendPage(ctx, 200, savePage(opened.scan!, step(id, opened.saveState, signedIn)));
  }

  function step(runId: string, state: SaveState, signedIn: SaveSession | undefined): SaveStep {
    if (state === SaveState.SAVED_TO_ANOTHER_ACCOUNT)
      return { kind: 'saved_elsewhere', signedIn: !!signedIn };
    if (!signedIn) {
      const providers = signIn.upstreams.map((u) => ({
        href: `${savePath(runId)}/sign-in/${u.provider.id}`,
        name: u.provider.name,
      }));
      return { kind: 'sign_in', providers };
    }
    if (state === SaveState.SAVED_TO_THIS_ACCOUNT) return { kind: 'saved', signedInWith: signedIn.provider };
    return { kind: 'choose', action: savePath(runId), signedInWith: signedIn.provider };
  }

  async function goUpstream(ctx: Context, id: string, providerId: string) {
    if (!UUID.test(id)) return sendPage(ctx, 404, SAVE_NOT_FOUND_PAGE);
    const upstream = signIn.find(providerId);
    if (!browserSecret(ctx) && crossSiteNavigation(ctx))
      return sendPage(ctx, 200, bouncePage('Opening your scan', `${savePath(id)}/sign-in/${providerId}`));
    // Only the consenting browser gets as far as signing in.
    if (!(await open(ctx, id, ''))) return;
    if (!upstream) return sendPage(ctx, 404, NO_SUCH_PROVIDER_PAGE);
    await signIn.start(ctx, upstream, { kind: 'save', id });
  }

  async function save(ctx: Context, id: string) {
    if (!fromThisOrigin(ctx, publicOrigin)) return sendPage(ctx, 403, FOREIGN_POST_PAGE);
    if (!UUID.test(id)) return sendPage(ctx, 404, SAVE_NOT_FOUND_PAGE);
    const signedIn = session(ctx, id);
    if (!signedIn) return ctx.redirect(savePath(id));
    try {
      await accounts.saveScan({
        accountId: signedIn.accountId,
        runId: id,
        browserSecret: browserSecret(ctx),
      });
    } catch (err) {
      if (errorReason(err) === 'not_found' && !(await accountExists(signedIn.accountId))) {
        // The account was deleted since signing in: sign in again.
        signIn.cookies.clear(ctx, SAVE_COOKIE, savePath(id));
        return ctx.redirect(savePath(id));
      }
      return refuse(ctx, err);
    }
    ctx.status = 303;
    ctx.redirect(savePath(id));
  }

  async function accountExists(accountId: string): Promise<boolean> {
    return accounts.getAccount({ accountId }).then(
      () => true,
      () => false,
    );
  }

  function refuse(ctx: Context, err: unknown) {
    const reason = errorReason(err);
    const refusal = reason && SAVE_REFUSALS[reason];
    if (!refusal) logger.error({ err: (err as Error).message }, 'save page: core call failed');
    const { status, html } = refusal ?? SAVE_FAILED;
    sendPage(ctx, status, html);
  }

  return async (ctx: Context, next: () => Promise<void>) => {
    for (const [method, pattern, handle] of routes) {
      const m = pattern.exec(ctx.path);
      // A run_id in any case, as the tools take it; one spelling from here on (core, cookie path, links).
      // HEAD is GET without the body for the page itself (a link checker, a chat app's preview), never for
      // the sign-in link, which starts a sign-in.
      const asked = ctx.method === 'HEAD' && pattern === SAVE_PAGE ? 'GET' : ctx.method;
      if (m && asked === method) return handle(ctx, m[1]!.toLowerCase(), m);
    }
    return next();
  };
}

function savePath(runId: string): string {
  return `/save/${runId}`;
}
