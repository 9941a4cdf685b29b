/**
 * The person's side of /authorize: choose an upstream provider, sign in there, come back, approve or
 * decline the requested scopes. oidc-provider hands over at `/interaction/:uid`; its interaction cookie
 * is scoped to that path, so the upstream callback (a fixed, registered address) hands back to
 * `/interaction/:uid/signed-in` through a short-lived sealed cookie, with the account or with the error
 * the client is to get: `access_denied` when the person cancelled at the provider (or, after being told
 * why, chose not to sign in again when the provider's identity was anonymous), `server_error` or
 * `temporarily_unavailable` when the provider failed. The client is always sent back (RFC 6749 §4.1.2.1).
 *
 * A person who declines at the consent page leaves nothing behind: once the client has been sent back
 * with access_denied, the account signed in for it is deleted if it holds nothing (account-purge.ts).
 */
import type { Client } from '@connectrpc/connect';
import type { Context } from 'koa';
import type { KoaContextWithOIDC, Provider } from 'oidc-provider';
import type { AccountService } from '../../gen/skinmatch/v1/account_pb.ts';
import type { Logger } from '../../services/shared/logger.ts';
import { consentPage, errorPage, noticePage, providerChoicePage, sendPage } from './pages.ts';
import { isScope, SCOPES } from './scopes.ts';
import { expiredSignIn, type SignIn, type SignInOutcome } from './sign-in.ts';
import type { Upstream } from './upstream.ts';

const SIGNED_IN_COOKIE = '__Host-skinmatch-signed-in';
const OIDC_SCOPE_WORDS: Record<string, string> = {
  openid: 'Know which skinmatch account you signed in with',
  offline_access: 'Stay connected when you are not using it',
};

/** What the upstream callback hands to `/interaction/:uid/signed-in`: the account, or the client's error. */
type SignedIn = { uid: string } & ({ accountId: string } | { error: string; description: string });

export interface InteractionOptions {
  readonly provider: Provider;
  readonly signIn: SignIn;
  readonly accounts: Client<typeof AccountService>;
  readonly logger: Logger;
}

export function interactionRoutes(options: InteractionOptions) {
  const { provider, signIn, accounts, logger } = options;
  const routes: [string, RegExp, (ctx: Context, m: RegExpExecArray) => Promise<void>][] = [
    ['GET', /^\/interaction\/([\w-]+)$/, (ctx, m) => show(ctx, m[1]!)],
    ['GET', /^\/interaction\/([\w-]+)\/upstream\/(\w+)$/, (ctx, m) => goUpstream(ctx, m[1]!, m[2]!)],
    ['GET', /^\/interaction\/([\w-]+)\/signed-in$/, (ctx, m) => signedIn(ctx, m[1]!)],
    ['POST', /^\/interaction\/([\w-]+)\/consent$/, (ctx) => consent(ctx)],
  ];
  // After the upstream callback: a signed cookie bound to this interaction, read on its own path.
  signIn.on('interaction', (ctx, uid, outcome, upstream) => {
    const signed: SignedIn = { uid, ...handedBack(outcome, upstream) };
    signIn.cookies.set(ctx, SIGNED_IN_COOKIE, signed);
    if (outcome.kind !== 'anonymous') return ctx.redirect(`/interaction/${uid}/signed-in`);
    // The person may not know the identity was anonymous: say so, and let them choose.
    const name = upstream.provider.name;
    const text =
      `${name} signed you in anonymously, and skinmatch needs a named account. ` +
      `Sign in with a named ${name} account or another provider, or go back to the app without signing in.`;
    sendPage(
      ctx,
      403,
      noticePage('You are not signed in', text, [
        { href: `/interaction/${uid}`, name: 'Sign in another way' },
        { href: `/interaction/${uid}/signed-in`, name: 'Go back to the app' },
      ]),
    );
  });
  async function details(ctx: Context, uid: string) {
    const found = await provider.interactionDetails(ctx.req, ctx.res).catch(() => undefined);
    return found?.uid === uid ? found : undefined;
  }

  async function show(ctx: Context, uid: string) {
    const interaction = await details(ctx, uid);
    if (!interaction) return expiredSignIn(ctx);
    const client = await provider.Client.find(String(interaction.params.client_id));
    const clientName = client?.clientName ?? String(interaction.params.client_id);
    if (interaction.prompt.name === 'login') {
      const choices = signIn.upstreams.map((u) => ({
        href: `/interaction/${uid}/upstream/${u.provider.id}`,
        name: u.provider.name,
      }));
      return sendPage(ctx, 200, providerChoicePage(clientName, choices));
    }
    const words = requestedScopes(interaction.prompt.details).map(
      (s) => (isScope(s) ? SCOPES[s] : OIDC_SCOPE_WORDS[s]) ?? s,
    );
    const back = new URL(String(interaction.params.redirect_uri));
    // A native application's own scheme (cursor://…) is named with it: the host alone says little.
    const web = back.protocol === 'http:' || back.protocol === 'https:';
    const returnHost = web ? back.host : `${back.protocol}${back.host ? `//${back.host}` : ''}`;
    sendPage(ctx, 200, consentPage(clientName, returnHost, `/interaction/${uid}/consent`, words));
  }

  async function goUpstream(ctx: Context, uid: string, id: string) {
    const upstream = signIn.find(id);
    const interaction = await details(ctx, uid);
    if (interaction?.prompt.name !== 'login') return expiredSignIn(ctx);
    if (!upstream) return sendPage(ctx, 404, errorPage(404, 'unknown_provider', 'No such sign-in provider.'));
    await signIn.start(ctx, upstream, { kind: 'interaction', id: uid });
  }

  async function signedIn(ctx: Context, uid: string) {
    const signed = signIn.cookies.read<SignedIn>(ctx, SIGNED_IN_COOKIE);
    signIn.cookies.clear(ctx, SIGNED_IN_COOKIE);
    if (signed?.uid !== uid || !(await details(ctx, uid))) return expiredSignIn(ctx);
    if ('accountId' in signed) return finish(ctx, { login: { accountId: signed.accountId } });
    await finish(ctx, { error: signed.error, error_description: signed.description });
  }

  /**
   * After oidc-provider has sent the client back from a declined consent page: the account signed in for
   * it goes if it holds nothing (no scan, grant or token; its sign-in session goes with it).
   */
  async function forgetDeclined(ctx: Context) {
    const { oidc } = ctx as unknown as Partial<KoaContextWithOIDC>;
    if (oidc?.route !== 'resume') return;
    const interaction = oidc.entities.Interaction;
    const accountId = interaction?.session?.accountId;
    if (interaction?.prompt.name !== 'consent' || interaction.result?.error !== 'access_denied' || !accountId)
      return;
    await accounts.forgetUnusedAccount({ accountId }).catch((err: Error) => {
      // Not lost: the account purge deletes it once its sign-in session has ended.
      logger.warn({ err: err.message }, 'forgetting a declined sign-in failed');
    });
  }

  async function consent(ctx: Context) {
    const interaction = await provider.interactionDetails(ctx.req, ctx.res).catch(() => undefined);
    if (interaction?.prompt.name !== 'consent') return expiredSignIn(ctx);
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

  return async (ctx: Context, next: () => Promise<void>) => {
    for (const [method, pattern, handle] of routes) {
      const m = pattern.exec(ctx.path);
      if (m && ctx.method === method) return handle(ctx, m);
    }
    await next();
    await forgetDeclined(ctx);
  };
}

/** The account for a login, or the error the client is to get and its description. */
function handedBack(outcome: SignInOutcome, upstream: Upstream) {
  const name = upstream.provider.name;
  switch (outcome.kind) {
    case 'signed_in':
      return { accountId: outcome.accountId };
    case 'refused':
      return { error: 'access_denied', description: `The person cancelled signing in with ${name}.` };
    case 'anonymous':
      return {
        error: 'access_denied',
        description: `The person signed in anonymously with ${name}; a named account is needed.`,
      };
    case 'failed':
      return {
        error: outcome.error,
        description:
          outcome.error === 'temporarily_unavailable'
            ? `${name} is unavailable; try again later.`
            : `Signing in with ${name} did not work.`,
      };
  }
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
