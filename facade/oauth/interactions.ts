/**
 * The person's side of /authorize: choose an upstream provider, sign in there, come back, approve or
 * decline the requested scopes. oidc-provider hands over at `/interaction/:uid`; its interaction cookie
 * is scoped to that path, so the upstream callback (a fixed, registered address) hands back to
 * `/interaction/:uid/signed-in` through a short-lived signed cookie.
 */
import type { Client } from '@connectrpc/connect';
import type { Context } from 'koa';
import type { Provider } from 'oidc-provider';
import type { AccountService } from '../../gen/skinmatch/v1/account_pb.ts';
import type { Logger } from '../../services/shared/logger.ts';
import { consentPage, errorPage, providerChoicePage, sendPage } from './pages.ts';
import { isScope, SCOPES } from './scopes.ts';
import type { Upstream, UpstreamAttempt } from './upstream.ts';

const ATTEMPT_COOKIE = 'skinmatch_signin';
const SIGNED_IN_COOKIE = 'skinmatch_signed_in';
const ATTEMPT_TTL_MS = 10 * 60 * 1000;
const OIDC_SCOPE_WORDS: Record<string, string> = {
  openid: 'Know which skinmatch account you signed in with',
  offline_access: 'Stay connected when you are not using it',
};

export interface InteractionOptions {
  readonly provider: Provider;
  readonly upstreams: readonly Upstream[];
  readonly accounts: Client<typeof AccountService>;
  readonly publicBaseUrl: string;
  readonly logger: Logger;
}

export function interactionRoutes(options: InteractionOptions) {
  const { provider, upstreams, accounts, logger } = options;
  const routes: [string, RegExp, (ctx: Context, m: RegExpExecArray) => Promise<void>][] = [
    ['GET', /^\/interaction\/([\w-]+)$/, (ctx, m) => show(ctx, m[1]!)],
    ['GET', /^\/interaction\/([\w-]+)\/upstream\/(\w+)$/, (ctx, m) => goUpstream(ctx, m[1]!, m[2]!)],
    ['GET', /^\/oauth\/callback\/(\w+)$/, (ctx, m) => callback(ctx, m[1]!)],
    ['GET', /^\/interaction\/([\w-]+)\/signed-in$/, (ctx, m) => signedIn(ctx, m[1]!)],
    ['POST', /^\/interaction\/([\w-]+)\/consent$/, (ctx) => consent(ctx)],
  ];

  async function details(ctx: Context, uid: string) {
    const found = await provider.interactionDetails(ctx.req, ctx.res).catch(() => undefined);
    return found?.uid === uid ? found : undefined;
  }

  async function show(ctx: Context, uid: string) {
    const interaction = await details(ctx, uid);
    if (!interaction) return expired(ctx);
    const client = await provider.Client.find(String(interaction.params.client_id));
    const clientName = client?.clientName ?? String(interaction.params.client_id);
    if (interaction.prompt.name === 'login') {
      const choices = upstreams.map((u) => ({
        href: `/interaction/${uid}/upstream/${u.provider.id}`,
        name: u.provider.name,
      }));
      return sendPage(ctx, 200, providerChoicePage(clientName, choices));
    }
    const words = requestedScopes(interaction.prompt.details).map(
      (s) => (isScope(s) ? SCOPES[s] : OIDC_SCOPE_WORDS[s]) ?? s,
    );
    sendPage(ctx, 200, consentPage(clientName, `/interaction/${uid}/consent`, words));
  }

  async function goUpstream(ctx: Context, uid: string, id: string) {
    const upstream = upstreams.find((u) => u.provider.id === id);
    const interaction = await details(ctx, uid);
    if (interaction?.prompt.name !== 'login') return expired(ctx);
    if (!upstream) return sendPage(ctx, 404, errorPage(404, 'unknown_provider', 'No such sign-in provider.'));
    const { url, attempt } = await upstream.start(uid);
    setCookie(ctx, ATTEMPT_COOKIE, attempt);
    ctx.redirect(url);
  }

  async function callback(ctx: Context, id: string) {
    const attempt = readCookie<UpstreamAttempt>(ctx, ATTEMPT_COOKIE);
    const upstream = upstreams.find((u) => u.provider.id === id);
    if (!attempt || !upstream || attempt.provider !== id) return expired(ctx);
    let identity: Awaited<ReturnType<Upstream['finish']>>;
    try {
      identity = await upstream.finish(new URL(ctx.originalUrl, options.publicBaseUrl), attempt);
    } catch (err) {
      logger.warn(
        { provider: upstream.provider.issuer, err: (err as Error).message },
        'upstream sign-in failed',
      );
      return sendPage(
        ctx,
        400,
        errorPage(
          400,
          'sign_in_failed',
          `Signing in with ${upstream.provider.name} did not work; try again.`,
        ),
      );
    }
    if (identity.anonymous) {
      clearCookie(ctx, ATTEMPT_COOKIE);
      return sendPage(
        ctx,
        403,
        errorPage(
          403,
          'anonymous_identity',
          `An anonymous ${upstream.provider.name} sign-in cannot be used; sign in with a named account.`,
        ),
      );
    }
    const { account } = await accounts.signIn({
      provider: upstream.provider.issuer,
      subject: identity.subject,
    });
    clearCookie(ctx, ATTEMPT_COOKIE);
    setCookie(ctx, SIGNED_IN_COOKIE, { uid: attempt.uid, accountId: account!.accountId });
    ctx.redirect(`/interaction/${attempt.uid}/signed-in`);
  }

  async function signedIn(ctx: Context, uid: string) {
    const signed = readCookie<{ uid: string; accountId: string }>(ctx, SIGNED_IN_COOKIE);
    clearCookie(ctx, SIGNED_IN_COOKIE);
    if (signed?.uid !== uid || !(await details(ctx, uid))) return expired(ctx);
    await finish(ctx, { login: { accountId: signed.accountId } });
  }

  async function consent(ctx: Context) {
    const interaction = await provider.interactionDetails(ctx.req, ctx.res).catch(() => undefined);
    if (interaction?.prompt.name !== 'consent') return expired(ctx);
    const form = new URLSearchParams(await readForm(ctx));
    if (form.get('decision') !== 'approve') {
      return finish(ctx, { error: 'access_denied', error_description: 'The person declined the request.' });
    }
    const { accountId } = interaction.session!;
    const grant = interaction.grantId
      ? (await provider.Grant.find(interaction.grantId))!
      : new provider.Grant({ accountId, clientId: String(interaction.params.client_id) });
    const d = interaction.prompt.details as PromptDetails;
    if (d.missingOIDCScope) grant.addOIDCScope(d.missingOIDCScope.join(' '));
    for (const [indicator, scopes] of Object.entries(d.missingResourceScopes ?? {})) {
      grant.addResourceScope(indicator, scopes.join(' '));
    }
    await finish(ctx, { consent: { grantId: await grant.save() } });
  }

  async function finish(ctx: Context, result: Record<string, unknown>) {
    const to = await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: true });
    ctx.redirect(to);
  }

  function expired(ctx: Context) {
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

  return async (ctx: Context, next: () => Promise<void>) => {
    for (const [method, pattern, handle] of routes) {
      const m = pattern.exec(ctx.path);
      if (m && ctx.method === method) return handle(ctx, m);
    }
    return next();
  };
}

interface PromptDetails {
  missingOIDCScope?: string[];
  missingResourceScopes?: Record<string, string[]>;
}

function requestedScopes(details: unknown): string[] {
  const d = details as PromptDetails;
  return [
    ...new Set([...(d.missingOIDCScope ?? []), ...Object.values(d.missingResourceScopes ?? {}).flat()]),
  ];
}

function setCookie(ctx: Context, name: string, value: object) {
  ctx.cookies.set(name, Buffer.from(JSON.stringify(value)).toString('base64url'), {
    signed: true,
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.secure,
    maxAge: ATTEMPT_TTL_MS,
    path: '/',
  });
}

function readCookie<T>(ctx: Context, name: string): T | undefined {
  const value = ctx.cookies.get(name, { signed: true });
  if (!value) return undefined;
  try {
    return JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as T;
  } catch {
    return undefined;
  }
}

function clearCookie(ctx: Context, name: string) {
  ctx.cookies.set(name, null, { path: '/', signed: true });
}

async function readForm(ctx: Context): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > 4096) break;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
