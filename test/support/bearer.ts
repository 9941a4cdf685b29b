/**
 * Accounts and access tokens for tests of the resource server: an account created through core's
 * AccountService (as a sign-in would), and a JWT signed with the test stack's signing key for a grant
 * stored as the authorization server stores one, with claims a test can bend (scope, audience, expiry,
 * grant) to reach each refusal.
 */
import { createPrivateKey } from 'node:crypto';
import { createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { SignJWT } from 'jose';
import { AccountService } from '../../gen/skinmatch/v1/account_pb.ts';
import { OAuthStateService } from '../../gen/skinmatch/v1/oauth_state_pb.ts';
import { JSON_RPC_HEADERS } from './mcp.ts';
import { TEST_SIGNING_KEY } from './oauth.ts';

export function accountClient(coreUrl: string) {
  return createClient(AccountService, createConnectTransport({ baseUrl: coreUrl, httpVersion: '2' }));
}

export async function createAccount(coreUrl: string, subject: string): Promise<string> {
  const res = await accountClient(coreUrl).signIn({ provider: 'https://idp.test', subject });
  return res.account!.accountId;
}

export interface Claims {
  readonly scope?: string;
  readonly aud?: string;
  readonly iss?: string;
  readonly expiresIn?: number;
  readonly typ?: string;
  /** The grant the token names; by default one stored for this account and client. */
  readonly gid?: string;
}

const CLIENT_ID = 'test-client';

/** Stores a grant of `accountId` to the test client, as oidc-provider would; returns its id. */
export async function storeGrant(coreUrl: string, accountId: string): Promise<string> {
  const state = createClient(
    OAuthStateService,
    createConnectTransport({ baseUrl: coreUrl, httpVersion: '2' }),
  );
  const id = crypto.randomUUID();
  await state.upsertState({
    model: 'Grant',
    id,
    payload: { kind: 'Grant', jti: id, accountId, clientId: CLIENT_ID },
    expiresIn: 3600n,
  });
  return id;
}

export async function mintToken(
  stack: { readonly baseUrl: string; readonly coreUrl: string },
  accountId: string,
  claims: Claims = {},
): Promise<string> {
  const baseUrl = stack.baseUrl;
  const gid = claims.gid ?? (await storeGrant(stack.coreUrl, accountId));
  const now = Math.floor(Date.now() / 1000);
  const key = createPrivateKey({ key: TEST_SIGNING_KEY as never, format: 'jwk' });
  return new SignJWT({
    scope: claims.scope ?? 'scan:read scan:write catalog:read',
    client_id: CLIENT_ID,
    gid,
  })
    .setProtectedHeader({ alg: 'ES256', typ: claims.typ ?? 'at+jwt', kid: TEST_SIGNING_KEY.kid })
    .setSubject(accountId)
    .setIssuer(claims.iss ?? baseUrl)
    .setAudience(claims.aud ?? `${baseUrl}/mcp/account`)
    .setIssuedAt(now)
    .setExpirationTime(now + (claims.expiresIn ?? 600))
    .setJti(crypto.randomUUID())
    .sign(key);
}

/** One JSON-RPC request to /mcp/account with the given Authorization header value. */
export async function accountRpc(
  baseUrl: string,
  authorization: string | undefined,
  method: string,
  params?: unknown,
) {
  const res = await fetch(`${baseUrl}/mcp/account`, {
    method: 'POST',
    headers: { ...JSON_RPC_HEADERS, ...(authorization ? { authorization } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, ...(params === undefined ? {} : { params }) }),
  });
  const text = await res.text();
  return {
    status: res.status,
    challenge: res.headers.get('www-authenticate'),
    body: text ? JSON.parse(text) : undefined,
  };
}
