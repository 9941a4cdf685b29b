/**
 * A process that cannot start — its database unreachable, silent or refusing the login, its port taken —
 * says so in one JSON log line, a sentence naming what failed, and exits 1: never Node's multi-line stack
 * trace, never the database password. Real processes, as a container starts them (`scripts/role.ts`).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../scripts/port.ts';
import { createTestDatabase } from '../support/database.ts';

const PASSWORD = 'not-the-password-7f3a';

/** Runs a command to its end: its exit code and its output, stdout and stderr together. */
function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, output })));
}

const role = (name: string, env: NodeJS.ProcessEnv) => run(['scripts/role.ts', name], env);

/** Every line is a JSON log line and exactly one is fatal: answers it. */
function fatalLine(result: { code: number | null; output: string }): Record<string, unknown> {
  assert.equal(result.code, 1, result.output);
  const lines = result.output.trim().split('\n');
  const entries = lines.map((line) => {
    assert.ok(line.startsWith('{'), `not a JSON line: ${line}`);
    return JSON.parse(line) as Record<string, unknown>;
  });
  const fatal = entries.filter((entry) => entry.level === 'fatal');
  assert.equal(fatal.length, 1, result.output);
  assert.ok(!result.output.includes(PASSWORD), 'the password is not written');
  return fatal[0]!;
}

describe('a process that cannot start says why in one JSON line', function () {
  this.timeout(120_000);
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  /** The test database's URL with the user's password replaced. */
  let wrongPassword: URL;
  const listeners: net.Server[] = [];
  /** Where core and the façade keep their development secrets. */
  const dataDir = mkdtempSync(join(tmpdir(), 'skinmatch-startup-'));
  /** A port something else listens on; `silent`: it takes connections and never answers. */
  const taken = async () => {
    const server = net.createServer(() => {});
    listeners.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as net.AddressInfo).port;
  };

  before(async () => {
    database = await createTestDatabase();
    wrongPassword = new URL(database.url);
    wrongPassword.password = PASSWORD;
  });
  after(async () => {
    for (const server of listeners) server.close();
    rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
  });

  it('core: the database unreachable (ECONNREFUSED)', async () => {
    const port = await freePort();
    const fatal = fatalLine(
      await role('core', {
        DATABASE_URL: `postgres://skinmatch:${PASSWORD}@127.0.0.1:${port}/skinmatch`,
        CORE_PORT: '0',
        CORE_METRICS_PORT: '0',
        DATA_DIR: dataDir,
      }),
    );
    assert.equal(fatal.msg, `cannot start: cannot reach the database at 127.0.0.1:${port} (ECONNREFUSED)`);
    assert.equal(fatal.code, 'ECONNREFUSED');
  });

  it('migrate: a server that takes the connection and never answers (the connection timeout)', async () => {
    const port = await taken();
    const fatal = fatalLine(
      await role('migrate', { DATABASE_URL: `postgres://skinmatch:${PASSWORD}@127.0.0.1:${port}/skinmatch` }),
    );
    assert.equal(
      fatal.msg,
      `cannot start: cannot reach the database at 127.0.0.1:${port} (no answer within the connection timeout)`,
    );
  });

  it('migrate: a wrong password (28P01) and a database that does not exist (3D000)', async () => {
    const at = `${wrongPassword.hostname}:${wrongPassword.port}`;
    const refused = fatalLine(await role('migrate', { DATABASE_URL: wrongPassword.toString() }));
    assert.equal(
      refused.msg,
      `cannot start: the database at ${at} refused the login of user "${wrongPassword.username}" (28P01: wrong password or user not allowed)`,
    );
    assert.equal(refused.code, '28P01');

    const missing = new URL(database.url);
    missing.pathname = '/skinmatch_no_such_database';
    const absent = fatalLine(await role('migrate', { DATABASE_URL: missing.toString() }));
    assert.equal(
      absent.msg,
      `cannot start: the database "skinmatch_no_such_database" does not exist at ${at}`,
    );
    assert.equal(absent.code, '3D000');
  });

  it('the façade and inference: their port in use (EADDRINUSE)', async () => {
    const port = await taken();
    const facade = fatalLine(
      await role('facade', { FACADE_PORT: String(port), FACADE_METRICS_PORT: '0', DATA_DIR: dataDir }),
    );
    assert.deepEqual([facade.msg, facade.code], [`cannot start: port ${port} is in use`, 'EADDRINUSE']);
    const inference = fatalLine(
      await role('inference', { INFERENCE_PORT: String(port), INFERENCE_METRICS_PORT: '0' }),
    );
    assert.deepEqual([inference.msg, inference.code], [`cannot start: port ${port} is in use`, 'EADDRINUSE']);
  });

  it('an error of no known kind: its message, its stack as a field of the same line', async () => {
    const script = `
      import { createLogger } from './services/shared/logger.ts';
      import { guardStartup } from './services/shared/startup.ts';
      guardStartup(createLogger('core'), 'postgres://skinmatch:${PASSWORD}@db:5432/skinmatch');
      await Promise.resolve();
      throw new Error('the models could not be loaded');`;
    const fatal = fatalLine(await run(['--input-type=module', '-e', script], {}));
    assert.equal(fatal.msg, 'cannot start: the models could not be loaded');
    assert.match(String((fatal.err as { stack: string }).stack), /^Error: the models could not be loaded\n/);
  });
});
