import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadFacadeConfig } from '../../services/shared/config.ts';

const PEPPER = 'ab'.repeat(32);
const COOKIE_KEYS = 'a-cookie-key-that-is-long-enough-123,an-older-cookie-key-still-long-enough';
const pem = (type: 'ec' | 'rsa' | 'ed25519') =>
  (type === 'ec'
    ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
    : type === 'rsa'
      ? generateKeyPairSync('rsa', { modulusLength: 2048 })
      : generateKeyPairSync('ed25519')
  ).privateKey
    .export({ type: 'pkcs8', format: 'pem' })
    .toString();
const IDPS = {
  IDP_1_ISSUER: 'https://accounts.example',
  IDP_1_CLIENT_ID: 'one',
  IDP_1_CLIENT_SECRET: 's1',
  IDP_1_NAME: 'Example',
  IDP_2_ISSUER: 'https://login.example',
  IDP_2_CLIENT_ID: 'two',
  IDP_2_CLIENT_SECRET: 's2',
};

describe('configuration of the authorization server', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'skinmatch-oauth-config-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('production refuses to start without a signing key, cookie keys or both upstream providers', () => {
    const env = {
      NODE_ENV: 'production',
      TOKEN_PEPPER: PEPPER,
      ALTCHA_HMAC_KEY: PEPPER,
      DATA_DIR: dir,
      DATABASE_URL: 'postgres://db.internal/skinmatch',
      PUBLIC_BASE_URL: 'https://skin.example.com',
    };
    assert.throws(
      () => loadFacadeConfig({ ...env, OAUTH_COOKIE_KEYS: COOKIE_KEYS, ...IDPS }),
      /OAUTH_SIGNING_KEY: not set, expected a PEM private key/,
    );
    assert.throws(
      () => loadFacadeConfig({ ...env, OAUTH_SIGNING_KEY: pem('ec'), ...IDPS }),
      /OAUTH_COOKIE_KEYS: not set/,
    );
    assert.throws(
      () => loadFacadeConfig({ ...env, OAUTH_SIGNING_KEY: pem('ec'), OAUTH_COOKIE_KEYS: COOKIE_KEYS }),
      /IDP_1_\* and IDP_2_\*: got 0 identity provider\(s\), expected both/,
    );
    const config = loadFacadeConfig({
      ...env,
      OAUTH_SIGNING_KEY: pem('ec'),
      OAUTH_COOKIE_KEYS: COOKIE_KEYS,
      ...IDPS,
    });
    assert.equal(config.oauth.signingKey.alg, 'ES256');
    assert.deepEqual(config.oauth.cookieKeys, COOKIE_KEYS.split(','));
    assert.deepEqual(
      config.oauth.upstreams.map((u) => [u.id, u.issuer, u.name]),
      [
        ['1', 'https://accounts.example', 'Example'],
        ['2', 'https://login.example', 'login.example'],
      ],
    );
    assert.deepEqual(config.warnings, []);
  });

  it('development generates a signing key and a cookie key once under the data directory, with warnings', () => {
    const first = loadFacadeConfig({ DATA_DIR: dir });
    const second = loadFacadeConfig({ DATA_DIR: dir });
    assert.deepEqual(first.oauth.signingKey, second.oauth.signingKey);
    assert.deepEqual(first.oauth.cookieKeys, second.oauth.cookieKeys);
    assert.match(readFileSync(join(dir, 'oauth-signing-key.pem'), 'utf8'), /BEGIN PRIVATE KEY/);
    assert.ok(
      first.warnings.some((w) => /OAUTH_SIGNING_KEY is not set.*Never do this in production/.test(w)),
    );
    assert.ok(first.warnings.some((w) => /OAUTH_COOKIE_KEYS is not set/.test(w)));
    assert.deepEqual(first.oauth.upstreams, []);
  });

  it('takes RSA keys too; rejects other keys, short cookie keys and half-configured providers', () => {
    const env = { DATA_DIR: dir, OAUTH_COOKIE_KEYS: COOKIE_KEYS };
    assert.equal(loadFacadeConfig({ ...env, OAUTH_SIGNING_KEY: pem('rsa') }).oauth.signingKey.alg, 'RS256');
    assert.throws(
      () => loadFacadeConfig({ ...env, OAUTH_SIGNING_KEY: pem('ed25519') }),
      /OAUTH_SIGNING_KEY: got a value of \d+ characters, expected an EC P-256 or RSA private key/,
    );
    assert.throws(
      () => loadFacadeConfig({ ...env, OAUTH_SIGNING_KEY: 'not a key' }),
      /OAUTH_SIGNING_KEY: got a value of 9 characters, expected a PEM private key/,
    );
    assert.throws(
      () => loadFacadeConfig({ DATA_DIR: dir, OAUTH_SIGNING_KEY: pem('ec'), OAUTH_COOKIE_KEYS: 'short' }),
      /OAUTH_COOKIE_KEYS: got a key of 5 characters, expected comma-separated random keys of at least 32/,
    );
    assert.throws(
      () => loadFacadeConfig({ ...env, OAUTH_SIGNING_KEY: pem('ec'), IDP_1_ISSUER: 'https://x.example' }),
      /IDP_1_\*: got no IDP_1_CLIENT_ID or IDP_1_CLIENT_SECRET, expected/,
    );
  });
});
