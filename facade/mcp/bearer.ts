/**
 * Bearer tokens of /mcp/account: JWT access tokens (`typ: at+jwt`) signed by this service's authorization
 * server, issued by it, for the resource `{base_url}/mcp/account` and unexpired — and for an account that
 * still exists (deleting one's data leaves its tokens unusable at once).
 */
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { type Client, Code, ConnectError } from '@connectrpc/connect';
import { jwtVerify } from 'jose';
import type { AccountService } from '../../gen/skinmatch/v1/account_pb.ts';
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
  readonly #accounts: Client<typeof AccountService>;

  constructor(
    signingKey: SigningJwk,
    issuer: string,
    resource: string,
    accounts: Client<typeof AccountService>,
  ) {
    this.#key = createPublicKey(createPrivateKey({ key: signingKey as never, format: 'jwk' }));
    this.#alg = signingKey.alg;
    this.#issuer = issuer;
    this.#resource = resource;
    this.#accounts = accounts;
  }

  async check(authorization: string | undefined): Promise<BearerCheck> {
    const match = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/i.exec(authorization ?? '');
    if (!match) return { ok: false, reason: authorization ? 'invalid' : 'missing' };
    const token = match[1]!;
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, this.#key, {
        issuer: this.#issuer,
        audience: this.#resource,
        typ: 'at+jwt',
        algorithms: [this.#alg],
        requiredClaims: ['sub', 'exp', 'client_id'],
      }));
    } catch {
      return { ok: false, reason: 'invalid' };
    }
    const accountId = String(payload.sub);
    try {
      await this.#accounts.getAccount({ accountId });
    } catch (err) {
      // A deleted account's tokens are dead; any other failure is the service's, not the caller's.
      if (ConnectError.from(err).code === Code.NotFound) return { ok: false, reason: 'invalid' };
      throw err;
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
