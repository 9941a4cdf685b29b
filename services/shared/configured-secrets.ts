/**
 * The exact values of the secrets a process was configured with, so that its logs never show one
 * (logger.ts `redactInLogs`), whatever its shape: the database password inside DATABASE_URL, the token
 * pepper and the ALTCHA key (core), the OAuth signing key, cookie keys and identity providers' client
 * secrets (the façade). The configuration loaders (config.ts) hand them over once read.
 */
import { createPrivateKey } from 'node:crypto';
import { redactInLogs } from './logger.ts';
import type { OAuthConfig } from './oauth-config.ts';

/** The password inside a connection string, as written and decoded. */
export function databasePassword(url: string | undefined): string[] {
  if (url === undefined || !URL.canParse(url)) return [];
  const { password } = new URL(url);
  if (!password) return [];
  try {
    return [password, decodeURIComponent(password)];
  } catch {
    return [password];
  }
}

/** The OAuth configuration's secret values: cookie keys, client secrets, the signing key in its forms. */
export function oauthSecrets(oauth: OAuthConfig | undefined): string[] {
  if (!oauth) return [];
  const jwk = oauth.signingKey as unknown as Record<string, unknown>;
  const members = ['d', 'p', 'q', 'dp', 'dq', 'qi'].map((m) => jwk[m]).filter((v) => typeof v === 'string');
  let pem: string[] = [];
  try {
    const key = createPrivateKey({ key: jwk as never, format: 'jwk' });
    pem = [key.export({ type: 'pkcs8', format: 'pem' }).toString()];
    if (jwk.kty === 'EC') pem.push(key.export({ type: 'sec1', format: 'pem' }).toString());
    else pem.push(key.export({ type: 'pkcs1', format: 'pem' }).toString());
  } catch {
    // a key Node cannot re-export: its members are still redacted
  }
  return [
    ...oauth.cookieKeys,
    ...oauth.upstreams.map((u) => u.clientSecret),
    ...(members as string[]),
    ...pem,
  ];
}

/**
 * Redacts, in every line this process logs from now on, each configured secret: the values given, the
 * database password, and the raw values of the variables named (as written, before any parsing).
 */
export function redactConfiguredSecrets(
  env: NodeJS.ProcessEnv,
  names: readonly string[],
  values: readonly (string | undefined)[],
): void {
  const raw = names.map((name) => env[name]?.trim());
  redactInLogs([...databasePassword(env.DATABASE_URL), ...raw, ...values]);
}
