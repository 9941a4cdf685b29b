/**
 * The authorization server's secrets and its upstream identity providers, read from the environment by
 * `loadFacadeConfig`. In production a missing, development or placeholder signing key or cookie key stops
 * the process at start; in development both are generated once under the data directory, with a warning
 * (like the token pepper).
 */
import { createHash, createPrivateKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import type { EnvReader } from './env-reader.ts';
import { describedPlaceholder, isPlaceholder, readSecret, type SecretContext } from './secrets.ts';
import { quote } from './text.ts';

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

const SIGNING_KEY = 'a PEM private key (EC P-256 or RSA)';
const COOKIE_KEYS = `comma-separated random keys of at least ${MIN_COOKIE_KEY_LENGTH} characters each`;

/** The authorization server's configuration, or undefined when a problem was recorded on the reader. */
export function loadOAuthConfig(context: SecretContext): OAuthConfig | undefined {
  const { reader, production } = context;
  const keyPem = readSecret(
    {
      name: 'OAUTH_SIGNING_KEY',
      fileName: 'oauth-signing-key.pem',
      expected: SIGNING_KEY,
      generate: () =>
        generateKeyPairSync('ec', { namedCurve: 'P-256' })
          .privateKey.export({ type: 'pkcs8', format: 'pem' })
          .toString(),
    },
    context,
  );
  let signingKey: SigningJwk | undefined;
  if (keyPem !== undefined) {
    try {
      signingKey = signingJwk(keyPem);
    } catch (err) {
      reader.problem('OAUTH_SIGNING_KEY', `a value of ${keyPem.length} characters`, (err as Error).message);
    }
  }
  const cookieValue = readSecret(
    {
      name: 'OAUTH_COOKIE_KEYS',
      fileName: 'oauth-cookie-keys',
      expected: COOKIE_KEYS,
      generate: () => randomBytes(32).toString('base64url'),
    },
    context,
  );
  const cookieKeys = (cookieValue ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  if (cookieValue !== undefined) {
    const short = cookieKeys.find((k) => k.length < MIN_COOKIE_KEY_LENGTH);
    const placeholder = production ? cookieKeys.find(isPlaceholder) : undefined;
    if (cookieKeys.length === 0 || short !== undefined) {
      reader.problem('OAUTH_COOKIE_KEYS', `a key of ${short?.length ?? 0} characters`, COOKIE_KEYS);
    } else if (placeholder !== undefined) {
      reader.problem(
        'OAUTH_COOKIE_KEYS',
        `a key of ${describedPlaceholder(placeholder)}`,
        `${COOKIE_KEYS}, not a placeholder (NODE_ENV=production)`,
      );
    }
  }
  const upstreams = ['1', '2'].flatMap((id) => upstream(reader, id));
  if (production && upstreams.length !== 2) {
    reader.fault(
      `IDP_1_* and IDP_2_*: got ${upstreams.length} identity provider(s), expected both (issuer, client id, secret; required when NODE_ENV=production)`,
    );
  }
  if (!signingKey || cookieValue === undefined) return undefined;
  return { signingKey, cookieKeys, upstreams };
}

/** The JWK of a PEM private key (EC P-256 → ES256, RSA → RS256); its kid is a thumbprint of the public part. */
export function signingJwk(pem: string): SigningJwk {
  let key: ReturnType<typeof createPrivateKey>;
  try {
    key = createPrivateKey(pem);
  } catch {
    throw new Error('a PEM private key (EC P-256 or RSA)');
  }
  const jwk = key.export({ format: 'jwk' }) as Record<string, string>;
  const alg: SigningJwk['alg'] | undefined =
    jwk.kty === 'EC' && jwk.crv === 'P-256' ? 'ES256' : jwk.kty === 'RSA' ? 'RS256' : undefined;
  if (!alg) throw new Error('an EC P-256 or RSA private key, not another kind');
  const publicPart = jwk.kty === 'EC' ? `${jwk.crv}.${jwk.x}.${jwk.y}` : `${jwk.e}.${jwk.n}`;
  const kid = createHash('sha256').update(publicPart).digest('base64url').slice(0, 16);
  return { ...jwk, kty: jwk.kty!, kid, alg, use: 'sig' };
}

function upstream(reader: EnvReader, id: string): UpstreamProvider[] {
  const read = (name: string) => reader.value(`IDP_${id}_${name}`)?.trim() || undefined;
  const issuer = read('ISSUER');
  const clientId = read('CLIENT_ID');
  const clientSecret = read('CLIENT_SECRET');
  if (!issuer && !clientId && !clientSecret) return [];
  if (!issuer || !clientId || !clientSecret) {
    const missing = ['ISSUER', 'CLIENT_ID', 'CLIENT_SECRET'].filter((name) => !read(name));
    reader.fault(
      `IDP_${id}_*: got no ${missing.map((name) => `IDP_${id}_${name}`).join(' or ')}, expected IDP_${id}_ISSUER, IDP_${id}_CLIENT_ID and IDP_${id}_CLIENT_SECRET together`,
    );
    return [];
  }
  if (!URL.canParse(issuer) || !/^https?:$/.test(new URL(issuer).protocol)) {
    reader.problem(`IDP_${id}_ISSUER`, quote(issuer), 'the provider’s issuer URL (https://…)');
    return [];
  }
  return [{ id, issuer, clientId, clientSecret, name: read('NAME') ?? new URL(issuer).host }];
}
