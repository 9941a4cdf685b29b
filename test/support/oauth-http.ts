/** The authorization server by plain HTTP, for the tests' exact answers: registration, PKCE, tokens. */
import { createHash, randomBytes } from 'node:crypto';
import { REDIRECT_URI } from './oauth-client.ts';

export async function register(baseUrl: string, metadata: Record<string, unknown> = {}) {
  const res = await fetch(`${baseUrl}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none', ...metadata }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function authorizeUrl(baseUrl: string, params: Record<string, string>): URL {
  const url = new URL('/authorize', baseUrl);
  for (const [k, v] of Object.entries({
    response_type: 'code',
    redirect_uri: REDIRECT_URI,
    scope: 'scan:read scan:write catalog:read',
    state: 'state-1',
    resource: `${baseUrl}/mcp/account`,
    ...params,
  })) {
    if (v !== '') url.searchParams.set(k, v);
  }
  return url;
}

/** GET /authorize without following redirects. */
export async function authorize(url: URL) {
  const res = await fetch(url, { redirect: 'manual' });
  const location = res.headers.get('location');
  return {
    status: res.status,
    location: location ? new URL(location, url) : undefined,
    headers: res.headers,
    text: await res.text(),
  };
}

/** What /token answers a grant it refuses (a used, revoked, expired or mismatched code or refresh token). */
export const INVALID_GRANT = {
  status: 400,
  body: { error: 'invalid_grant', error_description: 'grant request is invalid' },
};

export async function token(
  baseUrl: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${baseUrl}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form),
  });
  const text = await res.text();
  return {
    status: res.status,
    body: (text ? JSON.parse(text) : undefined) as Record<string, any> | undefined,
  };
}

export function decodeJwt(jwt: string) {
  const [header, payload] = jwt
    .split('.')
    .slice(0, 2)
    .map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()));
  return { header, payload };
}
