/**
 * Bearer tokens of /mcp/account: JWT access tokens (`typ: at+jwt`) signed by this service's authorization
 * server, issued by it, for the resource `{base_url}/mcp/account` and unexpired — and whose grant (`gid`)
 * still exists for that account and client, and an account that still exists. A grant ends when its refresh token is revoked at /token and
 * when the account's data is deleted (its grants go with the account), so either leaves the access tokens
 * of that grant unusable at once rather than when they expire.
 */
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { type Client, Code, ConnectError } from '@connectrpc/connect';
import { jwtVerify } from 'jose';
import type { AccountService } from '../../gen/skinmatch/v1/account_pb.ts';
import type { OAuthStateService } from '../../gen/skinmatch/v1/oauth_state_pb.ts';
import type { SigningJwk } from '../../services/shared/oauth-config.ts';

export interface VerifiedBearer {
  readonly token: string;
  readonly accountId: string;
  readonly clientId: string;
  readonly scopes: readonly string[];
  readonly expiresAt: number;
}

export type BearerCheck = { ok: true; bearer: VerifiedBearer } | { ok: false; reason: 'missing' | 'invalid' };

export class BearerVerifier {
  readonly #key: KeyObject;
  readonly #alg: string;
  readonly #issuer: string;
  readonly #resource: string;
  readonly #state: Client<typeof OAuthStateService>;
  readonly #accounts: Client<typeof AccountService>;

  constructor(
    signingKey: SigningJwk,
    issuer: string,
    resource: string,
    state: Client<typeof OAuthStateService>,
    accounts: Client<typeof AccountService>,
  ) {
    this.#key = createPublicKey(createPrivateKey({ key: signingKey as never, format: 'jwk' }));
    this.#alg = signingKey.alg;
    this.#issuer = issuer;
    this.#resource = resource;
    this.#state = state;
    this.#accounts = accounts;
  }

  async check(authorization: string | undefined): Promise<BearerCheck> {
    // Another scheme (Basic, …) is a request without bearer authentication, answered like no header at
    // all (RFC 6750 §3.1: no error code); a Bearer credential that is not a token is an invalid one.
    if (!/^Bearer(?: |$)/i.test(authorization ?? '')) return { ok: false, reason: 'missing' };
    const match = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/i.exec(authorization!);
    if (!match) return { ok: false, reason: 'invalid' };
    const token = match[1]!;
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, this.#key, {
        issuer: this.#issuer,
        audience: this.#resource,
        typ: 'at+jwt',
        algorithms: [this.#alg],
        requiredClaims: ['sub', 'exp', 'client_id', 'gid'],
      }));
    } catch {
      return { ok: false, reason: 'invalid' };
    }
    const accountId = String(payload.sub);
    const [grant, accountExists] = await Promise.all([
      this.#state.findState({ model: 'Grant', id: String(payload.gid) }).then((res) => res.state?.payload),
      this.#accounts.getAccount({ accountId }).then(
        () => true,
        (err: unknown) => {
          // A deleted account's tokens are dead; any other failure is the service's, not the caller's.
          if (ConnectError.from(err).code === Code.NotFound) return false;
          throw err;
        },
      ),
    ]);
    if (!accountExists || grant?.accountId !== accountId || grant.clientId !== payload.client_id) {
      return { ok: false, reason: 'invalid' };
    }
    return {
      ok: true,
      bearer: {
        token,
        accountId,
        clientId: String(payload.client_id),
        scopes: typeof payload.scope === 'string' ? payload.scope.split(' ').filter(Boolean) : [],
        expiresAt: Number(payload.exp),
      },
    };
  }
}
