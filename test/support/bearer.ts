/**
 * Accounts and access tokens for tests of the resource server: an account created through core's
 * AccountService (as a sign-in would), and a JWT signed with the test stack's signing key, with claims a
 * test can bend (scope, audience, expiry) to reach each refusal.
 */
import { createPrivateKey } from 'node:crypto';
import { createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { SignJWT } from 'jose';
import { AccountService } from '../../gen/skinmatch/v1/account_pb.ts';
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
}

export async function mintToken(baseUrl: string, accountId: string, claims: Claims = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const key = createPrivateKey({ key: TEST_SIGNING_KEY as never, format: 'jwk' });
  return new SignJWT({ scope: claims.scope ?? 'scan:read scan:write catalog:read', client_id: 'test-client' })
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
