import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../services/shared/config.ts';

describe('configuration', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'skinmatch-config-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses to start in production without a token pepper', () => {
    assert.throws(() => loadConfig({ NODE_ENV: 'production', DATA_DIR: dir }), /TOKEN_PEPPER is required/);
  });

  it('in development generates a pepper once, keeps it, and warns loudly', () => {
    const first = loadConfig({ DATA_DIR: dir });
    const second = loadConfig({ DATA_DIR: dir });
    assert.equal(first.tokenPepper.length, 32);
    assert.deepEqual(first.tokenPepper, second.tokenPepper);
    assert.equal(readFileSync(join(dir, 'token-pepper'), 'utf8'), first.tokenPepper.toString('hex'));
    assert.match(first.warnings[0] ?? '', /TOKEN_PEPPER is not set.*Never do this in production/);
  });

  it('takes a configured pepper and rejects a short one', () => {
    const pepper = 'ab'.repeat(32);
    assert.equal(loadConfig({ TOKEN_PEPPER: pepper, DATA_DIR: dir }).tokenPepper.toString('hex'), pepper);
    const { warnings } = loadConfig({ TOKEN_PEPPER: pepper, DATA_DIR: dir });
    assert.deepEqual(
      warnings.filter((w) => w.includes('TOKEN_PEPPER')),
      [],
    );
    assert.throws(() => loadConfig({ TOKEN_PEPPER: 'abcd', DATA_DIR: dir }), /at least 32 bytes/);
  });

  it('production also refuses to start without the ALTCHA key; development generates one beside the pepper', () => {
    const pepper = 'ab'.repeat(32);
    assert.throws(
      () => loadConfig({ NODE_ENV: 'production', TOKEN_PEPPER: pepper, DATA_DIR: dir }),
      /ALTCHA_HMAC_KEY is required/,
    );
    const first = loadConfig({ DATA_DIR: dir });
    assert.equal(first.altchaHmacKey.length, 32);
    assert.notDeepEqual(first.altchaHmacKey, first.tokenPepper);
    assert.deepEqual(loadConfig({ DATA_DIR: dir }).altchaHmacKey, first.altchaHmacKey);
    assert.ok(first.warnings.some((w) => /ALTCHA_HMAC_KEY is not set.*Never do this in production/.test(w)));
    assert.throws(
      () => loadConfig({ ALTCHA_HMAC_KEY: 'abcd', DATA_DIR: dir }),
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

  it('rejects malformed ports and limits', () => {
    assert.throws(() => loadConfig({ CORE_PORT: 'x', DATA_DIR: dir }), /CORE_PORT must be a port number/);
    assert.throws(() => loadConfig({ RATE_LIMIT_SCANS_PER_HOUR: '0', DATA_DIR: dir }), /positive integer/);
  });
});
