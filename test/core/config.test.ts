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

  it('rejects malformed ports and limits', () => {
    assert.throws(() => loadConfig({ CORE_PORT: 'x', DATA_DIR: dir }), /CORE_PORT must be a port number/);
    assert.throws(() => loadConfig({ RATE_LIMIT_SCANS_PER_HOUR: '0', DATA_DIR: dir }), /positive integer/);
  });
});
