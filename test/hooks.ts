/**
 * Root hooks. After the whole run: no log file written by any test stack holds a token-shaped string
 * (64 lowercase hex characters: the shape of every access token and of its hash), and the embedded
 * PostgreSQL started by the tests is stopped.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { stopTestDatabaseServer } from './support/database.ts';

const LOG_DIR = resolve('.data/test-logs');

export const mochaHooks = {
  beforeAll() {
    rmSync(LOG_DIR, { recursive: true, force: true });
  },
  async afterAll() {
    await stopTestDatabaseServer();
    if (!existsSync(LOG_DIR)) return;
    for (const file of readdirSync(LOG_DIR)) {
      const text = readFileSync(join(LOG_DIR, file), 'utf8');
      assert.doesNotMatch(text, /[a-f0-9]{64}/, `a token-shaped value was logged in ${file}`);
    }
  },
};
