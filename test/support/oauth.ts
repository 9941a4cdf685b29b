/** Authorization-server configuration for test stacks: a fresh signing key per run, fixed cookie keys. */
import { generateKeyPairSync } from 'node:crypto';
import { type OAuthConfig, signingJwk, type UpstreamProvider } from '../../services/shared/oauth-config.ts';

const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();

export const TEST_SIGNING_KEY = signingJwk(pem);

export function testOAuthConfig(upstreams: readonly UpstreamProvider[] = []): OAuthConfig {
  return {
    signingKey: TEST_SIGNING_KEY,
    cookieKeys: ['test-cookie-key-of-at-least-32-characters'],
    upstreams,
  };
}
