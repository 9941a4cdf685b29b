/**
 * The authorization server's secrets and its upstream identity providers, read from the environment by
 * `loadConfig`. In production a missing signing key or cookie key stops the process at start; in
 * development both are generated once under the data directory, with a warning (like the token pepper).
 */
import { createHash, createPrivateKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A private signing key as a JWK, with its `kid` and `alg`. */
export interface SigningJwk {
  readonly kty: string;
  readonly kid: string;
  readonly alg: 'ES256' | 'RS256';
  readonly [member: string]: unknown;
}

export interface UpstreamProvider {
  /** Stable short name used in the callback path: `1` or `2`. */
  readonly id: string;
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** What the sign-in page shows, e.g. "Google". */
  readonly name: string;
}

export interface OAuthConfig {
  readonly signingKey: SigningJwk;
  readonly cookieKeys: readonly string[];
  readonly upstreams: readonly UpstreamProvider[];
}

const MIN_COOKIE_KEY_LENGTH = 32;

export function loadOAuthConfig(
  env: NodeJS.ProcessEnv,
  production: boolean,
  dataDir: string,
  warnings: string[],
): OAuthConfig {
  const keyPem = secret(
    env.OAUTH_SIGNING_KEY,
    'OAUTH_SIGNING_KEY',
    'oauth-signing-key.pem',
    production,
    dataDir,
    warnings,
    () =>
      generateKeyPairSync('ec', { namedCurve: 'P-256' })
        .privateKey.export({ type: 'pkcs8', format: 'pem' })
        .toString(),
  );
  const cookieKeys = secret(
    env.OAUTH_COOKIE_KEYS,
    'OAUTH_COOKIE_KEYS',
    'oauth-cookie-keys',
    production,
    dataDir,
    warnings,
    () => randomBytes(32).toString('base64url'),
  )
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  if (cookieKeys.length === 0 || cookieKeys.some((k) => k.length < MIN_COOKIE_KEY_LENGTH)) {
    throw new Error(
      `OAUTH_COOKIE_KEYS must be comma-separated keys of at least ${MIN_COOKIE_KEY_LENGTH} characters`,
    );
  }
  const upstreams = ['1', '2'].flatMap((id) => upstream(env, id));
  if (production && upstreams.length !== 2) {
    throw new Error(
      'IDP_1_* and IDP_2_* (issuer, client id, secret, name) are required when NODE_ENV=production',
    );
  }
  return { signingKey: signingJwk(keyPem), cookieKeys, upstreams };
}

/** The JWK of a PEM private key (EC P-256 → ES256, RSA → RS256); its kid is a thumbprint of the public part. */
export function signingJwk(pem: string): SigningJwk {
  let key: ReturnType<typeof createPrivateKey>;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new Error('OAUTH_SIGNING_KEY must be a PEM private key (EC P-256 or RSA)');
  }
  const jwk = key.export({ format: 'jwk' }) as Record<string, string>;
  const alg: SigningJwk['alg'] | undefined =
    jwk.kty === 'EC' && jwk.crv === 'P-256' ? 'ES256' : jwk.kty === 'RSA' ? 'RS256' : undefined;
  if (!alg) throw new Error('OAUTH_SIGNING_KEY must be an EC P-256 or RSA private key');
  const publicPart = jwk.kty === 'EC' ? `${jwk.crv}.${jwk.x}.${jwk.y}` : `${jwk.e}.${jwk.n}`;
  const kid = createHash('sha256').update(publicPart).digest('base64url').slice(0, 16);
  return { ...jwk, kty: jwk.kty!, kid, alg, use: 'sig' };
}

function upstream(env: NodeJS.ProcessEnv, id: string): UpstreamProvider[] {
  const read = (name: string) => env[`IDP_${id}_${name}`]?.trim() || undefined;
  const issuer = read('ISSUER');
  const clientId = read('CLIENT_ID');
  const clientSecret = read('CLIENT_SECRET');
  if (!issuer && !clientId && !clientSecret) return [];
  if (!issuer || !clientId || !clientSecret) {
    throw new Error(`IDP_${id}_ISSUER, IDP_${id}_CLIENT_ID and IDP_${id}_CLIENT_SECRET go together`);
  }
  if (!URL.canParse(issuer)) throw new Error(`IDP_${id}_ISSUER must be a URL`);
  return [{ id, issuer, clientId, clientSecret, name: read('NAME') ?? new URL(issuer).host }];
}

function secret(
  value: string | undefined,
  name: string,
  fileName: string,
  production: boolean,
  dataDir: string,
  warnings: string[],
  generate: () => string,
): string {
  if (value) return value;
  if (production) throw new Error(`${name} is required when NODE_ENV=production`);
  const file = join(dataDir, fileName);
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, generate(), { mode: 0o600, flag: 'wx' });
  }
  warnings.push(`${name} is not set: using a development value from ${file}. Never do this in production.`);
  return readFileSync(file, 'utf8').trim();
}
