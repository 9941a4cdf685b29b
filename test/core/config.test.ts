import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, loadCoreConfig, loadFacadeConfig } from '../../services/shared/config.ts';
import { ConfigError } from '../../services/shared/env-reader.ts';

describe('configuration', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'skinmatch-config-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses to start in production without a token pepper', () => {
    assert.throws(
      () => loadCoreConfig({ NODE_ENV: 'production', DATA_DIR: dir }),
      /TOKEN_PEPPER: not set, expected at least 64 hex characters \(32 random bytes\) \(required when NODE_ENV=production\)/,
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
    assert.throws(
      () => loadCoreConfig({ TOKEN_PEPPER: 'abcd', DATA_DIR: dir }),
      /TOKEN_PEPPER: got 4 characters, expected at least 64 hex characters/,
    );
  });

  it('only core reads the pepper: the shared and the façade configuration neither demand nor hold it', () => {
    const production = {
      NODE_ENV: 'production',
      DATA_DIR: dir,
      DATABASE_URL: 'postgres://db.internal/skinmatch',
      PUBLIC_BASE_URL: 'https://skin.example.com',
    };
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
      /ALTCHA_HMAC_KEY: not set/,
    );
    const first = loadCoreConfig({ DATA_DIR: dir });
    assert.equal(first.altchaHmacKey.length, 32);
    assert.notDeepEqual(first.altchaHmacKey, first.tokenPepper);
    assert.deepEqual(loadCoreConfig({ DATA_DIR: dir }).altchaHmacKey, first.altchaHmacKey);
    assert.ok(first.warnings.some((w) => /ALTCHA_HMAC_KEY is not set.*Never do this in production/.test(w)));
    assert.throws(
      () => loadCoreConfig({ ALTCHA_HMAC_KEY: 'abcd', DATA_DIR: dir }),
      /ALTCHA_HMAC_KEY: got 4 characters, expected at least 64 hex/,
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
    assert.throws(
      () => loadConfig({ DATA_DIR: dir, PHOTO_MAX_BYTES: '-1' }),
      /PHOTO_MAX_BYTES: got "-1", expected a positive integer/,
    );
  });

  it('core and inference listen on loopback unless told otherwise', () => {
    const defaults = loadConfig({ DATA_DIR: dir });
    assert.deepEqual([defaults.coreHost, defaults.inferenceHost], ['127.0.0.1', '127.0.0.1']);
    const container = loadConfig({ DATA_DIR: dir, CORE_HOST: '0.0.0.0', INFERENCE_HOST: '::' });
    assert.deepEqual([container.coreHost, container.inferenceHost], ['0.0.0.0', '::']);
    assert.throws(
      () => loadConfig({ DATA_DIR: dir, CORE_HOST: 'http://core:8081' }),
      /CORE_HOST: got "http:\/\/core:8081", expected a host name or an IP address to listen on/,
    );
  });

  it('rejects malformed ports and limits', () => {
    assert.throws(
      () => loadCoreConfig({ CORE_PORT: 'x', DATA_DIR: dir }),
      /CORE_PORT: got "x", expected a port number from 0 to 65535/,
    );
    assert.throws(
      () => loadCoreConfig({ RATE_LIMIT_SCANS_PER_HOUR: '0', DATA_DIR: dir }),
      /RATE_LIMIT_SCANS_PER_HOUR: got "0", expected a positive integer/,
    );
  });

  it('EMBEDDED_PG_PORT is read like every port: npm start and the operator commands refuse a bad one', () => {
    assert.equal(loadConfig({ DATA_DIR: dir }).embeddedPgPort, 54320);
    assert.equal(loadConfig({ EMBEDDED_PG_PORT: '54400', DATA_DIR: dir }).embeddedPgPort, 54400);
    const env: NodeJS.ProcessEnv = { ...process.env, EMBEDDED_PG_PORT: '70000', DATA_DIR: dir };
    delete env.DATABASE_URL;
    for (const [name, args] of [
      ['start', ['scripts/start.ts']],
      ['admin', ['scripts/admin.ts', 'admissions', 'status']],
    ] as const) {
      const exit = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
      assert.equal(exit.status, 78, exit.stdout + exit.stderr);
      assert.equal(
        exit.stderr,
        `${name}: configuration refused (1 problem):\n  EMBEDDED_PG_PORT: got "70000", expected a port number from 0 to 65535\n`,
      );
    }
  });

  it('in production the operator commands need DATABASE_URL: none answers from an embedded database of its own', () => {
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production', DATA_DIR: dir };
    delete env.DATABASE_URL;
    const catalog = join(dir, 'catalog.csv');
    writeFileSync(catalog, 'product_id,name,ingredients\np1,Day Cream,"Aqua, Glycerin"\n');
    for (const [name, args] of [
      ['admin', ['scripts/admin.ts', 'admissions', 'status']],
      ['catalog:import', ['scripts/catalog-import.ts', catalog]],
    ] as const) {
      const exit = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
      assert.equal(exit.status, 78, exit.stdout + exit.stderr);
      assert.equal(exit.stdout, '');
      assert.equal(
        exit.stderr,
        `${name}: configuration refused (1 problem):\n  DATABASE_URL: not set, expected a postgres:// connection string (required when NODE_ENV=production)\n`,
      );
    }
    assert.equal(existsSync(join(dir, 'pg')), false, 'no embedded PostgreSQL was started');
  });

  it('reports every bad value at once, one line each: the variable, what was given, what is expected', () => {
    const error = (() => {
      try {
        loadCoreConfig({
          DATA_DIR: dir,
          CORE_PORT: '70000',
          PHOTO_MAX_BYTES: '1.5',
          LOG_LEVEL: 'loud',
          NODE_ENV: 'prod',
          CORE_URL: 'core:8081',
          TOKEN_PEPPER: 'zz'.repeat(32),
          SHUTDOWN_DRAIN_DELAY_MS: '30000',
          SHUTDOWN_TIMEOUT_MS: '20000',
        });
      } catch (err) {
        return err as ConfigError;
      }
      assert.fail('the configuration was accepted');
    })();
    assert.ok(error instanceof ConfigError);
    assert.deepEqual(error.problems, [
      'NODE_ENV: got "prod", expected one of production, development, test',
      'CORE_PORT: got "70000", expected a port number from 0 to 65535',
      'SHUTDOWN_DRAIN_DELAY_MS: got 30000, expected less than SHUTDOWN_TIMEOUT_MS (20000)',
      'CORE_URL: got "core:8081", expected a URL starting with http:// or https://',
      'PHOTO_MAX_BYTES: got "1.5", expected a positive integer',
      'LOG_LEVEL: got "loud", expected one of fatal, error, warn, info, debug, trace, silent',
      'TOKEN_PEPPER: got 64 characters, expected at least 64 hex characters (32 random bytes)',
    ]);
    assert.match(error.message, /^configuration refused \(7 problems\):\n {2}NODE_ENV: /);
  });

  it('production refuses development keys, placeholders and a public address on localhost or plain http', () => {
    const developed = loadCoreConfig({ DATA_DIR: dir });
    const production = {
      NODE_ENV: 'production',
      DATA_DIR: dir,
      DATABASE_URL: 'postgres://db.internal/skinmatch',
      PUBLIC_BASE_URL: 'https://skin.example.com',
    };
    const problems = (env: NodeJS.ProcessEnv) => {
      try {
        loadCoreConfig({ ...production, ...env });
        return [];
      } catch (err) {
        return [...(err as ConfigError).problems];
      }
    };
    const good = { TOKEN_PEPPER: 'ab'.repeat(32), ALTCHA_HMAC_KEY: randomBytes(32).toString('hex') };
    assert.deepEqual(problems(good), [
      'TOKEN_PEPPER: got 64 characters of only 2 distinct ones, expected at least 64 hex characters (32 random bytes), not a placeholder (NODE_ENV=production)',
    ]);
    good.TOKEN_PEPPER = randomBytes(32).toString('hex');
    assert.deepEqual(problems(good), []);
    assert.deepEqual(problems({ ...good, TOKEN_PEPPER: developed.tokenPepper.toString('hex') }), [
      `TOKEN_PEPPER: got the development key generated in ${join(dir, 'token-pepper')}, expected at least 64 hex characters (32 random bytes) of its own (NODE_ENV=production)`,
    ]);
    assert.deepEqual(problems({ ...good, ALTCHA_HMAC_KEY: good.TOKEN_PEPPER }), [
      'ALTCHA_HMAC_KEY: got the same key as TOKEN_PEPPER, expected a key of its own',
    ]);
    const address = "expected the façade's public https:// address (NODE_ENV=production)";
    for (const url of ['http://skin.example.com', 'https://localhost:8080', 'https://127.0.0.1']) {
      assert.deepEqual(problems({ ...good, PUBLIC_BASE_URL: url }), [
        `PUBLIC_BASE_URL: got "${url}", ${address}`,
      ]);
    }
    assert.deepEqual(problems({ ...good, PUBLIC_BASE_URL: '', DATABASE_URL: '' }), [
      'DATABASE_URL: not set, expected a postgres:// connection string (required when NODE_ENV=production)',
      `PUBLIC_BASE_URL: not set, ${address}`,
    ]);
    // A secret's value never appears in a message, nor a password of the database's address.
    const secretProblems = problems({
      TOKEN_PEPPER: 'secret-pepper',
      DATABASE_URL: 'mysql://u:hunter2@db/x',
    });
    assert.ok(secretProblems.length >= 2);
    assert.doesNotMatch(secretProblems.join('\n'), /secret-pepper|hunter2/);
  });

  it('reads MCP_ALLOWED_ORIGINS as exact origins (none by default) and refuses anything else, one line each', () => {
    assert.deepEqual(loadFacadeConfig({ DATA_DIR: dir }).mcpAllowedOrigins, []);
    const listed = 'https://inspector.example.com, http://localhost:6274';
    assert.deepEqual(loadFacadeConfig({ DATA_DIR: dir, MCP_ALLOWED_ORIGINS: listed }).mcpAllowedOrigins, [
      'https://inspector.example.com',
      'http://localhost:6274',
    ]);
    const refused = [
      'https://*.example.com',
      'https://ide.example.com/',
      'HTTPS://ide.example.com',
      'ftp://x.example',
      'ide.example.com',
      'https://ide.example.com:443',
    ];
    let error: unknown;
    try {
      loadFacadeConfig({ DATA_DIR: dir, MCP_ALLOWED_ORIGINS: `https://ok.example.com,${refused.join(',')}` });
    } catch (err) {
      error = err;
    }
    assert.ok(error instanceof ConfigError);
    const expected =
      'expected comma-separated origins as browsers send them (e.g. https://inspector.example.com): http(s), lower case, no path, default port or wildcard';
    assert.deepEqual(
      error.problems,
      refused.map((origin) => `MCP_ALLOWED_ORIGINS: got "${origin}", ${expected}`),
    );
  });
});
