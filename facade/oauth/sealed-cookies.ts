/**
 * The façade's own short-lived cookies of a sign-in (the upstream attempt with its PKCE verifier, state and
 * nonce; the interaction's signed-in account; the save page's session): sealed with AES-256-GCM under a key
 * derived from OAUTH_COOKIE_KEYS (at-rest.ts; the first current, any of them read), the cookie's name as
 * associated data, so that its value shows nothing and one cookie cannot stand in for another. Secure
 * whenever PUBLIC_BASE_URL is https, also when TLS ends at a proxy the façade does not trust (TRUST_PROXY
 * unset), where the request itself looks like plain http, and always for a name with a `__Host-` or
 * `__Secure-` prefix, which browsers keep only so (they take Secure cookies from http://localhost too).
 */
import type { Context } from 'koa';
import { AtRestKeys } from './at-rest.ts';

const COOKIE_TTL_MS = 10 * 60 * 1000;
const PREFIXED = /^__(Host|Secure)-/;

export class SealedCookies {
  readonly #keys: AtRestKeys;
  readonly #https: boolean;

  constructor(cookieKeys: readonly string[], publicBaseUrl: string) {
    this.#keys = new AtRestKeys(cookieKeys, 'sign-in cookie');
    this.#https = new URL(publicBaseUrl).protocol === 'https:';
  }

  set(ctx: Context, name: string, value: object, path = '/'): void {
    this.#write(ctx, name, this.#keys.seal(JSON.stringify(value), name), path);
  }

  read<T>(ctx: Context, name: string): T | undefined {
    const value = ctx.cookies.get(name);
    const opened = value ? this.#keys.open(value, name) : undefined;
    if (!opened) return undefined;
    try {
      return JSON.parse(opened.value) as T;
    } catch {
      return undefined;
    }
  }

  clear(ctx: Context, name: string, path = '/'): void {
    this.#write(ctx, name, null, path);
  }

  #write(ctx: Context, name: string, value: string | null, path: string): void {
    const secure = ctx.secure || this.#https || PREFIXED.test(name);
    // Koa refuses a Secure cookie on a request it sees as plain http: the proxy in front is https.
    if (secure) ctx.cookies.secure = true;
    ctx.cookies.set(name, value, { httpOnly: true, sameSite: 'lax', secure, maxAge: COOKIE_TTL_MS, path });
  }
}
