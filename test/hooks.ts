/**
 * Root hooks. After the whole run: no log file written by any test stack or test-started process holds a
 * secret, by the shapes secrets have here — a scan token or browser secret (64 hex characters, like their
 * hashes), a bearer credential, a JSON Web Token (access tokens), a cookie value (name=value with a long
 * value), an authorization code or refresh token (oidc-provider's 43-character base64url ids: a long
 * base64url run mixing upper case, lower case and digits). The embedded PostgreSQL started by the tests is
 * stopped.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { stopTestDatabaseServer } from './support/database.ts';

const LOG_DIR = resolve('.data/test-logs');

/** What a secret looks like in a log line, by name (the assertion says which matched). */
export const SECRET_SHAPES: Readonly<Record<string, RegExp>> = {
  'a 64-hex token': /(?<![A-Fa-f0-9])[a-f0-9]{64}(?![A-Fa-f0-9])/,
  'a bearer credential': /\bBearer\s+(?!\[redacted\])[A-Za-z0-9._~+/=-]{8,}/i,
  'a JSON Web Token': /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/,
  'a cookie value':
    /(?:^|[\s;"',{])(?:__Host-)?[A-Za-z_][\w.-]*(?:\.sig)?=(?!\[redacted\])[A-Za-z0-9_%+/-]{16,}/,
  'an authorization code, refresh token or signed value':
    /(?<![A-Za-z0-9_-])(?=[A-Za-z0-9_-]*[A-Z])(?=[A-Za-z0-9_-]*[a-z])(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{32,}(?![A-Za-z0-9_-])/,
};

export const mochaHooks = {
  beforeAll() {
    rmSync(LOG_DIR, { recursive: true, force: true });
  },
  async afterAll() {
    await stopTestDatabaseServer();
    if (!existsSync(LOG_DIR)) return;
    for (const file of readdirSync(LOG_DIR)) {
      const text = readFileSync(join(LOG_DIR, file), 'utf8');
      for (const [shape, pattern] of Object.entries(SECRET_SHAPES)) {
        const found = pattern.exec(text);
        assert.equal(
          found,
          null,
          `${shape} was logged in ${file}: …${found ? text.slice(Math.max(0, found.index - 80), found.index + 6) : ''}…`,
        );
      }
    }
  },
};
