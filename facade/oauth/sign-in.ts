/**
 * A person's sign-in at an upstream provider, for whichever page asked for it: the authorization server's
 * interaction (`/interaction/:uid`) or the save page (`/save/:id`). Each upstream provider is registered
 * with one fixed callback, `/oauth/callback/{id}`; what to do after it is carried in a short-lived sealed
 * cookie with the sign-in attempt. The callback redeems the code, refuses anonymous identities, signs the
 * account in through AccountService and hands the account to the page that asked.
 */
import type { Client } from '@connectrpc/connect';
import type { Context } from 'koa';
import type { AccountService } from '../../gen/skinmatch/v1/account_pb.ts';
import type { Logger } from '../../services/shared/logger.ts';
import { errorPage, sendPage } from './pages.ts';
import { SealedCookies } from './sealed-cookies.ts';
import type { SignInPurpose, Upstream, UpstreamAttempt } from './upstream.ts';

const ATTEMPT_COOKIE = 'skinmatch_signin';

/** What a page does once the person is signed in: `id` is its own (interaction uid, scan id). */
export type SignedInHandler = (ctx: Context, id: string, accountId: string, upstream: Upstream) => void;

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
    let identity: Awaited<ReturnType<Upstream['finish']>>;
    try {
      identity = await upstream.finish(new URL(ctx.originalUrl, this.#options.publicBaseUrl), attempt);
    } catch (err) {
      this.#options.logger.warn(
        { provider: upstream.provider.issuer, err: (err as Error).message },
        'upstream sign-in failed',
      );
      const text = `Signing in with ${upstream.provider.name} did not work; try again.`;
      return sendPage(ctx, 400, errorPage(400, 'sign_in_failed', text));
    }
    this.cookies.clear(ctx, ATTEMPT_COOKIE);
    if (identity.anonymous) {
      const text = `An anonymous ${upstream.provider.name} sign-in cannot be used; sign in with a named account.`;
      return sendPage(ctx, 403, errorPage(403, 'anonymous_identity', text));
    }
    const { account } = await this.#options.accounts.signIn({
      provider: upstream.provider.issuer,
      subject: identity.subject,
    });
    handler(ctx, attempt.purpose.id, account!.accountId, upstream);
  };
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
