import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, loadCoreConfig, loadFacadeConfig } from '../../services/shared/config.ts';

describe('configuration', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'skinmatch-config-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses to start in production without a token pepper', () => {
    assert.throws(
      () => loadCoreConfig({ NODE_ENV: 'production', DATA_DIR: dir }),
      /TOKEN_PEPPER is required/,
    );
  });

  it('in development generates a pepper once, keeps it, and warns loudly', () => {
    const first = loadCoreConfig({ DATA_DIR: dir });
    const second = loadCoreConfig({ DATA_DIR: dir });
    assert.equal(first.tokenPepper.length, 32);
    assert.deepEqual(first.tokenPepper, second.tokenPepper);
    assert.equal(readFileSync(join(dir, 'token-pepper'), 'utf8'), first.tokenPepper.toString('hex'));
    assert.match(first.warnings[0] ?? '', /TOKEN_PEPPER is not set.*Never do this in production/);
  });

  it('takes a configured pepper and rejects a short one', () => {
    const pepper = 'ab'.repeat(32);
    assert.equal(loadCoreConfig({ TOKEN_PEPPER: pepper, DATA_DIR: dir }).tokenPepper.toString('hex'), pepper);
    const { warnings } = loadCoreConfig({ TOKEN_PEPPER: pepper, DATA_DIR: dir });
    assert.deepEqual(
      warnings.filter((w) => w.includes('TOKEN_PEPPER')),
      [],
    );
    assert.throws(() => loadCoreConfig({ TOKEN_PEPPER: 'abcd', DATA_DIR: dir }), /at least 32 bytes/);
  });

  it('only core reads the pepper: the shared and the façade configuration neither demand nor hold it', () => {
    const production = { NODE_ENV: 'production', DATA_DIR: dir };
    assert.equal('tokenPepper' in loadConfig(production), false);
    const facade = loadFacadeConfig({
      ...production,
      OAUTH_SIGNING_KEY: generateKeyPairSync('ec', { namedCurve: 'P-256' })
        .privateKey.export({ type: 'pkcs8', format: 'pem' })
        .toString(),
      OAUTH_COOKIE_KEYS: 'a-cookie-key-that-is-long-enough-123',
      ...Object.fromEntries(
        ['1', '2'].flatMap((id) => [
          [`IDP_${id}_ISSUER`, `https://idp${id}.example`],
          [`IDP_${id}_CLIENT_ID`, id],
          [`IDP_${id}_CLIENT_SECRET`, `s${id}`],
        ]),
      ),
    });
    assert.equal('tokenPepper' in facade, false);
    assert.equal(facade.oauth.upstreams.length, 2);
  });

  it('production also refuses to start without the ALTCHA key; development generates one beside the pepper', () => {
    const pepper = 'ab'.repeat(32);
    assert.throws(
      () => loadCoreConfig({ NODE_ENV: 'production', TOKEN_PEPPER: pepper, DATA_DIR: dir }),
      /ALTCHA_HMAC_KEY is required/,
    );
    const first = loadCoreConfig({ DATA_DIR: dir });
    assert.equal(first.altchaHmacKey.length, 32);
    assert.notDeepEqual(first.altchaHmacKey, first.tokenPepper);
    assert.deepEqual(loadCoreConfig({ DATA_DIR: dir }).altchaHmacKey, first.altchaHmacKey);
    assert.ok(first.warnings.some((w) => /ALTCHA_HMAC_KEY is not set.*Never do this in production/.test(w)));
    assert.throws(
      () => loadCoreConfig({ ALTCHA_HMAC_KEY: 'abcd', DATA_DIR: dir }),
      /ALTCHA_HMAC_KEY must be at least 32/,
    );
  });

  it('reads the photo bounds, with defaults of 10 MB, 40 megapixels and 20 uploads an hour', () => {
    const defaults = loadConfig({ DATA_DIR: dir });
    assert.deepEqual(
      [defaults.photoMaxBytes, defaults.photoMaxPixels, defaults.photoUploadsPerHour],
      [10 * 1024 * 1024, 40_000_000, 20],
    );
    const set = loadConfig({
      DATA_DIR: dir,
      PHOTO_MAX_BYTES: '1000',
      PHOTO_MAX_PIXELS: '2000',
      PHOTO_UPLOADS_PER_HOUR: '3',
    });
    assert.deepEqual([set.photoMaxBytes, set.photoMaxPixels, set.photoUploadsPerHour], [1000, 2000, 3]);
    assert.throws(() => loadConfig({ DATA_DIR: dir, PHOTO_MAX_BYTES: '-1' }), /PHOTO_MAX_BYTES must be/);
  });

  it('core and inference listen on loopback unless told otherwise', () => {
    const defaults = loadConfig({ DATA_DIR: dir });
    assert.deepEqual([defaults.coreHost, defaults.inferenceHost], ['127.0.0.1', '127.0.0.1']);
    const container = loadConfig({ DATA_DIR: dir, CORE_HOST: '0.0.0.0', INFERENCE_HOST: '0.0.0.0' });
    assert.deepEqual([container.coreHost, container.inferenceHost], ['0.0.0.0', '0.0.0.0']);
  });

  it('rejects malformed ports and limits', () => {
    assert.throws(() => loadCoreConfig({ CORE_PORT: 'x', DATA_DIR: dir }), /CORE_PORT must be a port number/);
    assert.throws(
      () => loadCoreConfig({ RATE_LIMIT_SCANS_PER_HOUR: '0', DATA_DIR: dir }),
      /positive integer/,
    );
  });
});
