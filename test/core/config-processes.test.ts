/**
 * Each process refuses a bad configuration before doing anything: every problem on stderr, one a line,
 * with the variable, what was given and what is expected, and exit status 78. In production nothing of
 * development's is accepted. Started here as real processes, as a container would start them.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXIT_CONFIG } from '../../services/shared/env-reader.ts';

interface Exit {
  readonly code: number | null;
  readonly stderr: string;
  readonly stdout: string;
}

/** Runs a role's process to its end (a refused configuration ends it at once). */
function run(role: string, env: NodeJS.ProcessEnv): Promise<Exit> {
  const child = spawn(process.execPath, ['scripts/role.ts', role], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr!.on('data', (chunk) => {
    stderr += chunk;
  });
  child.stdout!.on('data', (chunk) => {
    stdout += chunk;
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  return new Promise((done) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      done({ code, stderr, stdout });
    }),
  );
}

const hex = () => randomBytes(32).toString('hex');
const pem = () =>
  generateKeyPairSync('ec', { namedCurve: 'P-256' })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString();
const ADDRESS = "expected the façade's public https:// address (NODE_ENV=production)";
const HEX_KEY = 'expected at least 64 hex characters (32 random bytes)';

describe('configuration refused by the processes themselves', function () {
  this.timeout(60_000);
  let dir: string;
  let production: NodeJS.ProcessEnv;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'skinmatch-config-processes-'));
    // Unreachable on purpose: a refused configuration must stop the process before it connects anywhere.
    production = {
      NODE_ENV: 'production',
      DATA_DIR: dir,
      DATABASE_URL: 'postgres://nobody@127.0.0.1:9/none',
      PUBLIC_BASE_URL: 'https://skin.example.com',
    };
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('core in production with nothing set: every missing value at once, exit 78, nothing started', async () => {
    const exit = await run('core', { NODE_ENV: 'production', DATA_DIR: dir });
    assert.equal(exit.code, EXIT_CONFIG);
    assert.equal(
      exit.stderr,
      [
        'core: configuration refused (4 problems):',
        '  DATABASE_URL: not set, expected a postgres:// connection string (required when NODE_ENV=production)',
        `  PUBLIC_BASE_URL: not set, ${ADDRESS}`,
        `  TOKEN_PEPPER: not set, ${HEX_KEY} (required when NODE_ENV=production)`,
        `  ALTCHA_HMAC_KEY: not set, ${HEX_KEY} (required when NODE_ENV=production)`,
        '',
      ].join('\n'),
    );
    assert.equal(exit.stdout, '', 'nothing was started or logged');
  });

  it('core refuses a placeholder pepper, the development key and one key for two purposes', async () => {
    const developmentPepper = hex();
    writeFileSync(join(dir, 'token-pepper'), developmentPepper);
    const placeholder = await run('core', {
      ...production,
      TOKEN_PEPPER: 'ab'.repeat(32),
      ALTCHA_HMAC_KEY: developmentPepper,
    });
    assert.equal(placeholder.code, EXIT_CONFIG);
    assert.deepEqual(placeholder.stderr.trim().split('\n').slice(1), [
      `  TOKEN_PEPPER: got 64 characters of only 2 distinct ones, ${HEX_KEY}, not a placeholder (NODE_ENV=production)`,
    ]);
    const developed = await run('core', {
      ...production,
      TOKEN_PEPPER: developmentPepper,
      ALTCHA_HMAC_KEY: hex(),
    });
    assert.equal(developed.code, EXIT_CONFIG);
    assert.deepEqual(developed.stderr.trim().split('\n').slice(1), [
      `  TOKEN_PEPPER: got the development key generated in ${join(dir, 'token-pepper')}, ${HEX_KEY} of its own (NODE_ENV=production)`,
    ]);
    const key = hex();
    const shared = await run('core', { ...production, TOKEN_PEPPER: key, ALTCHA_HMAC_KEY: key });
    assert.equal(shared.code, EXIT_CONFIG);
    assert.match(
      shared.stderr,
      /ALTCHA_HMAC_KEY: got the same key as TOKEN_PEPPER, expected a key of its own/,
    );
    assert.doesNotMatch(
      placeholder.stderr + developed.stderr + shared.stderr,
      new RegExp(`${developmentPepper}|${key}`),
    );
  });

  it('the façade refuses missing OAuth keys and a public address on localhost, in one report', async () => {
    const exit = await run('facade', { ...production, PUBLIC_BASE_URL: 'http://localhost:8080' });
    assert.equal(exit.code, EXIT_CONFIG);
    assert.equal(
      exit.stderr,
      [
        'facade: configuration refused (4 problems):',
        `  PUBLIC_BASE_URL: got "http://localhost:8080", ${ADDRESS}`,
        '  OAUTH_SIGNING_KEY: not set, expected a PEM private key (EC P-256 or RSA) (required when NODE_ENV=production)',
        '  OAUTH_COOKIE_KEYS: not set, expected comma-separated random keys of at least 32 characters each (required when NODE_ENV=production)',
        '  IDP_1_* and IDP_2_*: got 0 identity provider(s), expected both (issuer, client id, secret; required when NODE_ENV=production)',
        '',
      ].join('\n'),
    );
  });

  it('the façade refuses plain http, a placeholder cookie key and the development signing key', async () => {
    const developmentKey = pem();
    writeFileSync(join(dir, 'oauth-signing-key.pem'), developmentKey);
    const exit = await run('facade', {
      ...production,
      PUBLIC_BASE_URL: 'http://skin.example.com',
      OAUTH_SIGNING_KEY: developmentKey,
      OAUTH_COOKIE_KEYS: `${randomBytes(24).toString('base64url')},${'changeme'.repeat(4)}`,
      IDP_1_ISSUER: 'https://accounts.example',
      IDP_1_CLIENT_ID: 'one',
      IDP_1_CLIENT_SECRET: 's1',
      IDP_2_ISSUER: 'https://login.example',
      IDP_2_CLIENT_ID: 'two',
      IDP_2_CLIENT_SECRET: 's2',
    });
    assert.equal(exit.code, EXIT_CONFIG);
    assert.deepEqual(exit.stderr.trim().split('\n'), [
      'facade: configuration refused (3 problems):',
      `  PUBLIC_BASE_URL: got "http://skin.example.com", ${ADDRESS}`,
      `  OAUTH_SIGNING_KEY: got the development key generated in ${join(dir, 'oauth-signing-key.pem')}, expected a PEM private key (EC P-256 or RSA) of its own (NODE_ENV=production)`,
      '  OAUTH_COOKIE_KEYS: got a key of 32 characters of only 7 distinct ones, expected comma-separated random keys of at least 32 characters each, not a placeholder (NODE_ENV=production)',
    ]);
  });

  it('inference and the migration Job refuse their bad values too', async () => {
    const inference = await run('inference', {
      INFERENCE_PORT: '80808',
      LOG_LEVEL: 'verbose',
      SHUTDOWN_TIMEOUT_MS: '0',
    });
    assert.equal(inference.code, EXIT_CONFIG);
    assert.deepEqual(inference.stderr.trim().split('\n'), [
      'inference: configuration refused (3 problems):',
      '  INFERENCE_PORT: got "80808", expected a port number from 0 to 65535',
      '  SHUTDOWN_TIMEOUT_MS: got "0", expected a positive integer',
      '  LOG_LEVEL: got "verbose", expected one of fatal, error, warn, info, debug, trace, silent',
    ]);
    const migrate = await run('migrate', { DATABASE_URL: 'mysql://root:hunter2@db/x' });
    assert.equal(migrate.code, EXIT_CONFIG);
    assert.deepEqual(migrate.stderr.trim().split('\n'), [
      'migrate: configuration refused (1 problem):',
      '  DATABASE_URL: got a value that is not such a URL (25 characters), expected a URL starting with postgres:// or postgresql://',
    ]);
  });
});
