/**
 * What `npm start` gives each process (scripts/start.ts through services/shared/process-env.ts): every
 * variable its configuration loader reads, no secret it does not read — inference none, the façade never
 * the pepper or the ALTCHA key — and the same secrets as the chart's Deployments give it.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, loadCoreConfig, loadFacadeConfig } from '../../services/shared/config.ts';
import {
  allowedVariables,
  type ProcessRole,
  processEnv,
  SECRET_VARIABLES,
} from '../../services/shared/process-env.ts';
import { traceExportSettings } from '../../services/shared/trace-export.ts';
import { find, render } from '../support/helm.ts';

const ROLES: readonly ProcessRole[] = ['inference', 'core', 'facade'];
const ALL_SECRETS = new Set(Object.values(SECRET_VARIABLES).flat());
const LOADERS: Record<ProcessRole, (env: NodeJS.ProcessEnv) => unknown> = {
  inference: loadConfig,
  core: loadCoreConfig,
  facade: loadFacadeConfig,
};

/** The names `role`'s configuration loader and trace settings read from `env`. */
function variablesRead(role: ProcessRole, env: NodeJS.ProcessEnv): Set<string> {
  const read = new Set<string>();
  const recording = new Proxy(
    { ...env },
    {
      get: (target, name) => {
        if (typeof name === 'string') read.add(name);
        return target[name as string];
      },
    },
  );
  LOADERS[role](recording);
  traceExportSettings(role, recording);
  return read;
}

describe('the environment npm start gives each process', () => {
  let dataDir: string;
  let full: NodeJS.ProcessEnv;

  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'process-env-'));
    // A shell that exported everything: every secret, the IdPs, and unrelated credentials.
    full = {
      PATH: process.env.PATH,
      HOME: '/home/someone',
      NODE_ENV: 'development',
      NODE_OPTIONS: '--max-old-space-size=2048',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      DATABASE_URL: 'postgres://skinmatch:db-password-1@127.0.0.1:5432/skinmatch',
      TOKEN_PEPPER: randomBytes(32).toString('hex'),
      ALTCHA_HMAC_KEY: randomBytes(32).toString('hex'),
      OAUTH_SIGNING_KEY: generateKeyPairSync('ec', { namedCurve: 'P-256' })
        .privateKey.export({ type: 'pkcs8', format: 'pem' })
        .toString(),
      OAUTH_COOKIE_KEYS: randomBytes(32).toString('base64url'),
      IDP_1_ISSUER: 'https://idp-one.example.com',
      IDP_1_CLIENT_ID: 'one',
      IDP_1_CLIENT_SECRET: 'skinmatch-dev-secret-1',
      IDP_2_ISSUER: 'https://idp-two.example.com',
      IDP_2_CLIENT_ID: 'two',
      IDP_2_CLIENT_SECRET: 'skinmatch-dev-secret-2',
      AWS_SECRET_ACCESS_KEY: 'not-ours',
      GITHUB_TOKEN: 'not-ours-either',
      NODE_AUTH_TOKEN_SECRET: 'kept-out',
    };
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('gives inference no secret, the façade neither the pepper nor the ALTCHA key, core no OAuth secret', () => {
    const inference = processEnv('inference', full);
    for (const name of [...ALL_SECRETS, 'AWS_SECRET_ACCESS_KEY', 'GITHUB_TOKEN', 'NODE_AUTH_TOKEN_SECRET'])
      assert.equal(inference[name], undefined, name);
    assert.equal(inference.PATH, full.PATH);
    assert.equal(inference.NODE_OPTIONS, full.NODE_OPTIONS);
    assert.equal(inference.LOG_LEVEL, 'warn');
    const facade = processEnv('facade', full);
    for (const name of ['TOKEN_PEPPER', 'ALTCHA_HMAC_KEY', 'AWS_SECRET_ACCESS_KEY'])
      assert.equal(facade[name], undefined, name);
    assert.equal(facade.IDP_1_CLIENT_SECRET, 'skinmatch-dev-secret-1');
    assert.equal(facade.DATABASE_URL, full.DATABASE_URL);
    const core = processEnv('core', full);
    for (const name of [
      'OAUTH_SIGNING_KEY',
      'OAUTH_COOKIE_KEYS',
      'IDP_1_CLIENT_SECRET',
      'IDP_2_CLIENT_SECRET',
    ])
      assert.equal(core[name], undefined, name);
    assert.equal(core.TOKEN_PEPPER, full.TOKEN_PEPPER);
    // No value at all of a secret reaches a process that does not read it.
    const values = (role: ProcessRole) => new Set(Object.values(processEnv(role, full)));
    assert.ok(!values('inference').has(full.IDP_1_CLIENT_SECRET));
    assert.ok(!values('facade').has(full.TOKEN_PEPPER));
  });

  it('passes on every variable each process’s configuration loader reads', () => {
    for (const role of ROLES) {
      const read = variablesRead(role, full);
      // And of the secrets, those it reads: every process's shared configuration has DATABASE_URL, which
      // inference never uses (nor does the chart give it).
      const used = new Set([...read].filter((name) => name !== 'DATABASE_URL' || role !== 'inference'));
      const given = processEnv(role, Object.fromEntries([...used].map((name) => [name, 'x'])));
      const missing = [...used].filter((name) => given[name] === undefined);
      assert.deepEqual(missing, [], `${role} reads variables npm start does not give it`);
      const secretsRead = [...used].filter((name) => ALL_SECRETS.has(name)).sort();
      assert.deepEqual(secretsRead, [...SECRET_VARIABLES[role]].sort(), role);
      assert.ok([...allowedVariables(role)].every((name) => !ALL_SECRETS.has(name) || used.has(name)));
    }
  });

  it('has every variable a process reads in the README’s configuration section, where operators look', () => {
    const readme = readFileSync('README.md', 'utf8');
    const section = readme.slice(readme.indexOf('### Configuration'), readme.indexOf('## Performance'));
    const read = new Set(ROLES.flatMap((role) => [...variablesRead(role, full)]));
    // `IDP_2_*` is documented as "the same for `IDP_2_*`" beside the IDP_1_ names.
    const named = (name: string): boolean =>
      section.includes(`\`${name}\``) ||
      section.includes(`\`${name}=`) ||
      (/^IDP_2_/.test(name) && section.includes('`IDP_2_*`') && named(name.replace('IDP_2_', 'IDP_1_')));
    assert.deepEqual([...read].filter((name) => /^[A-Z][A-Z0-9_]+$/.test(name) && !named(name)).sort(), []);
  });

  it('gives each process the secrets the chart’s Deployment gives it', function () {
    this.timeout(60_000);
    const manifests = render({
      publicBaseUrl: 'https://skin.example.com',
      database: { url: 'postgres://u:p@db:5432/skinmatch' },
      secrets: {
        tokenPepper: randomBytes(32).toString('hex'),
        altchaHmacKey: randomBytes(32).toString('hex'),
        oauthSigningKey: full.OAUTH_SIGNING_KEY,
        oauthCookieKeys: randomBytes(24).toString('base64url'),
        identityProviderClientSecrets: ['upstream-secret-1', 'upstream-secret-2'],
      },
      oauth: {
        identityProviders: [
          { issuer: 'https://idp-one.example.com', clientId: 'one' },
          { issuer: 'https://idp-two.example.com', clientId: 'two' },
        ],
      },
    });
    // The ConfigMap every Deployment reads is configuration npm start passes on to every process.
    const shared = Object.keys(find(manifests, 'ConfigMap', 'rel-skinmatch').data ?? {});
    for (const role of ROLES) {
      const allowed = allowedVariables(role);
      assert.deepEqual(
        shared.filter((name) => !allowed.has(name)),
        [],
        `${role}: ConfigMap keys npm start does not give`,
      );
      const container = find(manifests, 'Deployment', `rel-skinmatch-${role}`).spec.template.spec
        .containers[0];
      const fromSecrets = (
        (container.env ?? []) as { name: string; valueFrom?: { secretKeyRef?: unknown } }[]
      )
        .filter((entry) => entry.valueFrom?.secretKeyRef)
        .map((entry) => entry.name)
        .sort();
      assert.deepEqual(fromSecrets, [...SECRET_VARIABLES[role]].sort(), role);
    }
  });
});
