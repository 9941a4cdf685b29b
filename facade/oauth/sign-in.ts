/**
 * A person's sign-in at an upstream provider, for whichever page asked for it: the authorization server's
 * interaction (`/interaction/:uid`) or the save page (`/save/:id`). Each upstream provider is registered
 * with one fixed callback, `/oauth/callback/{id}`; what to do after it is carried in a short-lived sealed
 * cookie with the sign-in attempt. The callback redeems the code, refuses anonymous identities, signs the
 * account in through AccountService and hands the outcome to the page that asked: the account, or why
 * there is none — the person cancelled at the provider (its `error=access_denied` answer, RFC 6749
 * §4.1.2.1), the identity is anonymous, or the provider failed. Each page then leads the person on (and
 * the OAuth client back); no outcome ends on a page with nowhere to go.
 */
import type { Client } from '@connectrpc/connect';
import type { Context } from 'koa';
import type { AccountService } from '../../gen/skinmatch/v1/account_pb.ts';
import type { Logger } from '../../services/shared/logger.ts';
import { errorPage, sendPage } from './pages.ts';
import { SealedCookies } from './sealed-cookies.ts';
import type { SignInPurpose, Upstream, UpstreamAttempt } from './upstream.ts';

const ATTEMPT_COOKIE = '__Host-skinmatch-signin';

/** How a sign-in at an upstream provider ended. */
export type SignInOutcome =
  | { readonly kind: 'signed_in'; readonly accountId: string }
  /** The person cancelled at the provider (it answered `access_denied`). */
  | { readonly kind: 'refused' }
  | { readonly kind: 'anonymous' }
  /** The provider answered an error, or its answer did not check out: as RFC 6749 names it to a client. */
  | { readonly kind: 'failed'; readonly error: 'server_error' | 'temporarily_unavailable' };

/** What a page does once the sign-in has ended: `id` is its own (interaction uid, scan id). */
export type SignedInHandler = (ctx: Context, id: string, outcome: SignInOutcome, upstream: Upstream) => void;

export interface SignInOptions {
  readonly upstreams: readonly Upstream[];
  readonly accounts: Client<typeof AccountService>;
  readonly publicBaseUrl: string;
  /** OAUTH_COOKIE_KEYS: the sign-in cookies are sealed under keys derived from them. */
  readonly cookieKeys: readonly string[];
  readonly logger: Logger;
}

export class SignIn {
  readonly upstreams: readonly Upstream[];
  readonly cookies: SealedCookies;
  readonly #options: SignInOptions;
  readonly #handlers = new Map<SignInPurpose['kind'], SignedInHandler>();

  constructor(options: SignInOptions) {
    this.#options = options;
    this.upstreams = options.upstreams;
    this.cookies = new SealedCookies(options.cookieKeys, options.publicBaseUrl);
  }

  /** Registers what happens after a sign-in started for `kind`. */
  on(kind: SignInPurpose['kind'], handler: SignedInHandler): void {
    this.#handlers.set(kind, handler);
  }

  find(id: string): Upstream | undefined {
    return this.upstreams.find((u) => u.provider.id === id);
  }

  /** Sends the person to the upstream provider, remembering the attempt. */
  async start(ctx: Context, upstream: Upstream, purpose: SignInPurpose): Promise<void> {
    const { url, attempt } = await upstream.start(purpose);
    this.cookies.set(ctx, ATTEMPT_COOKIE, attempt);
    ctx.redirect(url);
  }

  /** GET /oauth/callback/:id */
  callback = async (ctx: Context, next: () => Promise<void>): Promise<void> => {
    const m = /^\/oauth\/callback\/(\w+)$/.exec(ctx.path);
    if (!m || ctx.method !== 'GET') return next();
    const attempt = this.cookies.read<UpstreamAttempt>(ctx, ATTEMPT_COOKIE);
    const upstream = this.find(m[1]!);
    const handler = attempt && this.#handlers.get(attempt.purpose?.kind);
    if (!attempt || !upstream || attempt.provider !== m[1] || !handler) return expiredSignIn(ctx);
    const outcome = await this.#outcome(ctx, upstream, attempt);
    this.cookies.clear(ctx, ATTEMPT_COOKIE);
    handler(ctx, attempt.purpose.id, outcome, upstream);
  };

  async #outcome(ctx: Context, upstream: Upstream, attempt: UpstreamAttempt): Promise<SignInOutcome> {
    const { logger } = this.#options;
    const answered = ctx.query.error;
    // The provider's error answer to this attempt (its state): the person cancelled, or it could not sign
    // them in. An answer without this attempt's state is left to `finish`, which refuses it.
    if (typeof answered === 'string' && ctx.query.state === attempt.state) {
      logger.info(
        { provider: upstream.provider.issuer, error: answered.slice(0, 64) },
        'upstream sign-in not done',
      );
      if (answered === 'access_denied') return { kind: 'refused' };
      return { kind: 'failed', error: answered === 'temporarily_unavailable' ? answered : 'server_error' };
    }
    let identity: Awaited<ReturnType<Upstream['finish']>>;
    try {
      identity = await upstream.finish(new URL(ctx.originalUrl, this.#options.publicBaseUrl), attempt);
    } catch (err) {
      logger.warn(
        { provider: upstream.provider.issuer, err: (err as Error).message },
        'upstream sign-in failed',
      );
      return { kind: 'failed', error: 'server_error' };
    }
    if (identity.anonymous) return { kind: 'anonymous' };
    const { account } = await this.#options.accounts.signIn({
      provider: upstream.provider.issuer,
      subject: identity.subject,
    });
    return { kind: 'signed_in', accountId: account!.accountId };
  }
}

export function expiredSignIn(ctx: Context): void {
  sendPage(
    ctx,
    400,
    errorPage(
      400,
      'session_expired',
      'This sign-in has expired or was opened elsewhere; start again from your app.',
    ),
  );
}
