/**
 * The person's side of /authorize: choose an upstream provider, sign in there, come back, approve or
 * decline the requested scopes. oidc-provider hands over at `/interaction/:uid`; its interaction cookie
 * is scoped to that path, so the upstream callback (a fixed, registered address) hands back to
 * `/interaction/:uid/signed-in` through a short-lived sealed cookie.
 */
import type { Context } from 'koa';
import type { Provider } from 'oidc-provider';
import { consentPage, errorPage, providerChoicePage, sendPage } from './pages.ts';
import { isScope, SCOPES } from './scopes.ts';
import { expiredSignIn, type SignIn } from './sign-in.ts';

const SIGNED_IN_COOKIE = 'skinmatch_signed_in';
const OIDC_SCOPE_WORDS: Record<string, string> = {
  openid: 'Know which skinmatch account you signed in with',
  offline_access: 'Stay connected when you are not using it',
};

export interface InteractionOptions {
  readonly provider: Provider;
  readonly signIn: SignIn;
}

export function interactionRoutes(options: InteractionOptions) {
  const { provider, signIn } = options;
  const routes: [string, RegExp, (ctx: Context, m: RegExpExecArray) => Promise<void>][] = [
    ['GET', /^\/interaction\/([\w-]+)$/, (ctx, m) => show(ctx, m[1]!)],
    ['GET', /^\/interaction\/([\w-]+)\/upstream\/(\w+)$/, (ctx, m) => goUpstream(ctx, m[1]!, m[2]!)],
    ['GET', /^\/interaction\/([\w-]+)\/signed-in$/, (ctx, m) => signedIn(ctx, m[1]!)],
    ['POST', /^\/interaction\/([\w-]+)\/consent$/, (ctx) => consent(ctx)],
  ];
  // After the upstream callback: a signed cookie bound to this interaction, read on its own path.
  signIn.on('interaction', (ctx, uid, accountId) => {
    signIn.cookies.set(ctx, SIGNED_IN_COOKIE, { uid, accountId });
    ctx.redirect(`/interaction/${uid}/signed-in`);
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
    const returnHost = new URL(String(interaction.params.redirect_uri)).host;
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
    const signed = signIn.cookies.read<{ uid: string; accountId: string }>(ctx, SIGNED_IN_COOKIE);
    signIn.cookies.clear(ctx, SIGNED_IN_COOKIE);
    if (signed?.uid !== uid || !(await details(ctx, uid))) return expiredSignIn(ctx);
    await finish(ctx, { login: { accountId: signed.accountId } });
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
