/**
 * Sign-in at an upstream OpenID Connect provider with openid-client: authorization code with PKCE, state
 * and nonce; the ID token is verified by openid-client. Discovery happens on first use and is retried on
 * the next sign-in if the provider was unreachable.
 */
import * as oidc from 'openid-client';
import type { UpstreamProvider } from '../../services/shared/oauth-config.ts';

/** Which page asked for the sign-in, and its own id (the interaction's uid, the saved scan's run_id). */
export interface SignInPurpose {
  readonly kind: 'interaction' | 'save';
  readonly id: string;
}

/** What the façade remembers between sending the person upstream and their return. */
export interface UpstreamAttempt {
  readonly purpose: SignInPurpose;
  readonly provider: string;
  readonly verifier: string;
  readonly state: string;
  readonly nonce: string;
}

export interface UpstreamIdentity {
  readonly subject: string;
  /** True when the provider vouches for no one: an anonymous sign-in. */
  readonly anonymous: boolean;
}

export class Upstream {
  readonly provider: UpstreamProvider;
  readonly #redirectUri: string;
  #config: Promise<oidc.Configuration> | undefined;

  constructor(provider: UpstreamProvider, publicBaseUrl: string) {
    this.provider = provider;
    this.#redirectUri = `${publicBaseUrl}/oauth/callback/${provider.id}`;
  }

  /** Where to send the person, and what to check when they come back. */
  async start(purpose: SignInPurpose): Promise<{ url: string; attempt: UpstreamAttempt }> {
    const config = await this.#configuration();
    const verifier = oidc.randomPKCECodeVerifier();
    const attempt = {
      purpose,
      provider: this.provider.id,
      verifier,
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
    };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.#redirectUri,
      scope: 'openid',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: attempt.state,
      nonce: attempt.nonce,
    });
    return { url: url.href, attempt };
  }

  /** Redeems the code the person brought back; throws when any check fails. */
  async finish(callbackUrl: URL, attempt: UpstreamAttempt): Promise<UpstreamIdentity> {
    const tokens = await oidc.authorizationCodeGrant(await this.#configuration(), callbackUrl, {
      pkceCodeVerifier: attempt.verifier,
      expectedState: attempt.state,
      expectedNonce: attempt.nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims()!;
    return { subject: claims.sub, anonymous: isAnonymous(claims) };
  }

  #configuration(): Promise<oidc.Configuration> {
    this.#config ??= this.#discover().catch((err: unknown) => {
      this.#config = undefined;
      throw err;
    });
    return this.#config;
  }

  async #discover(): Promise<oidc.Configuration> {
    const { issuer, clientId, clientSecret } = this.provider;
    const insecure = new URL(issuer).protocol === 'http:';
    return oidc.discovery(
      new URL(issuer),
      clientId,
      { redirect_uris: [this.#redirectUri] },
      oidc.ClientSecretBasic(clientSecret),
      insecure ? { execute: [oidc.allowInsecureRequests] } : undefined,
    );
  }
}

/** Anonymous identities: `amr` containing "anonymous", or Firebase's `sign_in_provider` "anonymous". */
export function isAnonymous(claims: Record<string, unknown>): boolean {
  const amr = claims.amr;
  if (Array.isArray(amr) && amr.includes('anonymous')) return true;
  const firebase = claims.firebase;
  return (
    typeof firebase === 'object' &&
    firebase !== null &&
    (firebase as Record<string, unknown>).sign_in_provider === 'anonymous'
  );
}
