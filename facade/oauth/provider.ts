/**
 * The authorization server: oidc-provider, configured down to what the spec offers — authorization code
 * with PKCE S256 only, dynamic registration, refresh with rotation, revocation — and nothing else
 * (implicit, PAR, DPoP, userinfo, logout, device flow and the development interactions are off). Access
 * tokens are short-lived JWTs for one resource, `{base_url}/mcp/account`. All state goes through the
 * adapter to core.
 */
import type { Client } from '@connectrpc/connect';
import { type Configuration, errors, type KoaContextWithOIDC, Provider } from 'oidc-provider';
import type { AccountService } from '../../gen/skinmatch/v1/account_pb.ts';
import type { OAuthStateService } from '../../gen/skinmatch/v1/oauth_state_pb.ts';
import type { SigningJwk } from '../../services/shared/oauth-config.ts';
import { AtRestKeys } from './at-rest.ts';
import { errorPage, sendPage } from './pages.ts';
import { ACCOUNT_RESOURCE_PATH, SCOPE_NAMES } from './scopes.ts';
import { stateAdapterClass } from './state-adapter.ts';

export const ACCESS_TOKEN_TTL_S = 10 * 60;
const REFRESH_TOKEN_TTL_S = 30 * 24 * 3600;
/**
 * How long an authorization request waits for the person: the upstream sign-in (its cookies last 10
 * minutes, sealed-cookies.ts) and the consent page. oidc-provider's default, an hour, kept every request's
 * interaction, stored before anyone signs in, four times longer than a sign-in can use it.
 */
export const INTERACTION_TTL_S = 15 * 60;

export interface ProviderOptions {
  readonly issuer: string;
  readonly signingKey: SigningJwk;
  readonly cookieKeys: readonly string[];
  readonly state: Client<typeof OAuthStateService>;
  readonly accounts: Client<typeof AccountService>;
  readonly trustProxy: boolean;
}

export function createProvider(options: ProviderOptions): Provider {
  const resource = `${options.issuer}${ACCOUNT_RESOURCE_PATH}`;
  const { alg } = options.signingKey;
  const configuration: Configuration = {
    adapter: stateAdapterClass(options.state, new AtRestKeys(options.cookieKeys)),
    jwks: { keys: [options.signingKey as never] },
    // Named with the prefixes browsers enforce (Secure; __Host-: Path=/ and no Domain, so no other host of the
    // domain can plant a session of its own); security-headers.ts marks them Secure also over plain http.
    cookies: {
      keys: [...options.cookieKeys],
      names: {
        session: '__Host-session',
        interaction: '__Secure-interaction',
        resume: '__Secure-interaction-resume',
      },
    },
    routes: {
      authorization: '/authorize',
      registration: '/register',
      token: '/token',
      // Reached only through POST /token (see token-route.ts); the metadata advertises /token.
      revocation: '/token/revoke',
      jwks: '/jwks',
    },
    responseTypes: ['code'],
    pkce: { required: () => true },
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: alg,
    },
    enabledJWA: { idTokenSigningAlgValues: [alg] },
    // Listed here too so that registration accepts them in a client's `scope`.
    scopes: ['openid', 'offline_access', ...SCOPE_NAMES],
    claims: { openid: ['sub'] },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true, initialAccessToken: false },
      // A client may revoke only its own tokens; anyone else's are left alone (and told nothing).
      revocation: {
        enabled: true,
        allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId,
      },
      introspection: { enabled: false },
      userinfo: { enabled: false },
      dPoP: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      deviceFlow: { enabled: false },
      claimsParameter: { enabled: false },
      clientCredentials: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (indicator !== resource) throw new errors.InvalidTarget(`unknown resource: ${indicator}`);
          return {
            scope: SCOPE_NAMES.join(' '),
            audience: resource,
            accessTokenTTL: ACCESS_TOKEN_TTL_S,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg } },
          };
        },
      },
    },
    // The grant's id travels in each access token, so that the resource server can refuse the tokens of a
    // grant that has ended (revoked refresh token, deleted account) before they expire.
    extraTokenClaims: async (_ctx, token) => ('grantId' in token ? { gid: token.grantId } : undefined),
    // Refresh works without offline_access, and every refresh rotates the token.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: () => true,
    expiresWithSession: async () => false,
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_S,
      AuthorizationCode: 60,
      RefreshToken: REFRESH_TOKEN_TTL_S,
      Grant: REFRESH_TOKEN_TTL_S,
      Session: 24 * 3600,
      Interaction: INTERACTION_TTL_S,
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: async (_ctx, sub) => {
      const found = await options.accounts.getAccount({ accountId: sub }).catch(() => undefined);
      if (!found?.account) return undefined;
      return { accountId: sub, claims: () => ({ sub }) };
    },
    renderError: async (ctx: KoaContextWithOIDC, out) => {
      // An unknown client is a 400 page like a redirect mismatch: the request is bad, nobody is redirected.
      if (out.error === 'invalid_client' && ctx.oidc.route === 'authorization') ctx.status = 400;
      sendPage(ctx, ctx.status, errorPage(ctx.status, out.error ?? 'error', out.error_description ?? ''));
    },
  };
  const provider = new Provider(options.issuer, configuration);
  provider.proxy = options.trustProxy;
  // The spec: a redirect URI must equal a registered one exactly. Clients are registered native, for their
  // own URI schemes (registration.ts), and oidc-provider would let a native client's loopback URI differ in
  // its port (RFC 8252 §7.3); here no part may differ. (oidc-provider's recipe for redirect rules.)
  provider.Client.prototype.redirectUriAllowed = function (this: { redirectUris: string[] }, value: string) {
    return this.redirectUris.includes(value);
  };
  return provider;
}
