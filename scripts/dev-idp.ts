/**
 * A development OpenID Connect provider, its own process: the stand-in for the operator's upstream
 * identity providers under `npm start` and in the tests. It has one client (from the environment) and a
 * sign-in form that takes any name — no password, no external account. The name becomes the subject.
 * Two names play the anonymous identities real platforms issue, so that their refusal can be seen:
 * `anonymous` signs in with `amr: ["anonymous"]`, `firebase-anonymous` with Firebase's
 * `firebase.sign_in_provider: "anonymous"`. Cancel answers `error=access_denied`, as a real provider does
 * when the person presses cancel.
 *
 *   DEV_IDP_PORT, DEV_IDP_CLIENT_ID, DEV_IDP_CLIENT_SECRET, DEV_IDP_REDIRECT_URI, DEV_IDP_NAME
 */
import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { Provider } from 'oidc-provider';
import { escapeHtml, page, sendPage } from '../facade/oauth/pages.ts';
import { stopWithSupervisor } from '../services/shared/supervisor-link.ts';

const port = Number(process.env.DEV_IDP_PORT ?? 8083);
const name = process.env.DEV_IDP_NAME ?? 'Dev sign-in';
const issuer = `http://127.0.0.1:${port}`;

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: process.env.DEV_IDP_CLIENT_ID ?? 'skinmatch-dev',
      client_secret: process.env.DEV_IDP_CLIENT_SECRET ?? 'skinmatch-dev-secret',
      redirect_uris: (process.env.DEV_IDP_REDIRECT_URI ?? 'http://localhost:8080/oauth/callback/1').split(
        ',',
      ),
      grant_types: ['authorization_code'],
      response_types: ['code'],
    },
  ],
  cookies: { keys: [randomBytes(32).toString('base64url')] },
  features: { devInteractions: { enabled: false } },
  pkce: { required: () => true },
  claims: { openid: ['sub', 'firebase', 'amr'] },
  conformIdTokenClaims: false,
  findAccount: (_ctx, sub) => ({
    accountId: sub,
    claims: () => ({
      sub,
      ...(sub === 'firebase-anonymous' ? { firebase: { sign_in_provider: 'anonymous' } } : {}),
    }),
  }),
  // A dev provider asks no consent: the one client gets what it asks for.
  loadExistingGrant: async (ctx) => {
    if (!ctx.oidc.session?.accountId) return undefined;
    const grant = new ctx.oidc.provider.Grant({
      clientId: ctx.oidc.client!.clientId,
      accountId: ctx.oidc.session!.accountId!,
    });
    grant.addOIDCScope('openid');
    await grant.save();
    return grant;
  },
  renderError: async (ctx, out) => {
    sendPage(
      ctx as unknown as Context,
      ctx.status,
      page('Dev sign-in error', `<p>${escapeHtml(String(out.error))}</p>`),
    );
  },
});

provider.use(async (ctx, next) => {
  const m = /^\/interaction\/([\w-]+)$/.exec(ctx.path);
  if (!m) return next();
  const details = await provider.interactionDetails(ctx.req, ctx.res).catch(() => undefined);
  if (!details || details.uid !== m[1]) {
    return sendPage(ctx as unknown as Context, 400, page('Sign-in expired', '<p>Start again.</p>'));
  }
  if (ctx.method === 'GET') {
    return sendPage(
      ctx as unknown as Context,
      200,
      page(
        name,
        `<p>Development sign-in: any name works. <code>anonymous</code> and <code>firebase-anonymous</code> ` +
          `sign in anonymously.</p><form method="post" action="/interaction/${escapeHtml(m[1]!)}">` +
          '<label>Name <input name="login" required maxlength="100" autofocus></label>' +
          '<button type="submit">Sign in</button>' +
          '<button type="submit" name="decision" value="cancel" formnovalidate>Cancel</button></form>',
      ),
    );
  }
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
  const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
  if (form.get('decision') === 'cancel') {
    const result = { error: 'access_denied', error_description: 'The person cancelled signing in.' };
    return ctx.redirect(await provider.interactionResult(ctx.req, ctx.res, result));
  }
  const login = form.get('login')?.trim() || 'someone';
  const amr = login === 'anonymous' ? ['anonymous'] : ['pwd'];
  const to = await provider.interactionResult(ctx.req, ctx.res, { login: { accountId: login, amr } });
  ctx.redirect(to);
});

provider.listen(port, '127.0.0.1', () => {
  process.stdout.write(`dev identity provider "${name}" at ${issuer}\n`);
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(0));
stopWithSupervisor();
