/**
 * The service's processes started for real (`node scripts/role.ts <role>`), as a container starts them:
 * each with its own environment and port, its output kept for the test to read, stopped by signals.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { Health, type HealthCheckResponse_ServingStatus } from '../../gen/grpc/health/v1/health_pb.ts';
import { freePort, waitForPort } from '../../scripts/port.ts';
import { waitForReady } from '../../scripts/ready.ts';

export type Role = 'facade' | 'core' | 'inference' | 'migrate';

const LOG_DIR = resolve('.data/test-logs');

export interface RunningProcess {
  readonly role: Role;
  readonly port: number;
  readonly url: string;
  readonly child: ChildProcess;
  /** Everything it wrote, stdout and stderr. */
  output(): string;
  /** Its JSON log lines whose message matches. */
  logged(message: RegExp): Array<Record<string, unknown>>;
  /**
   * Its log lines whose message matches, once there is one. A line logged before a process answers may be
   * read from its pipe after the answer: wait for it, then count.
   */
  untilLogged(message: RegExp, timeoutMs?: number): Promise<Array<Record<string, unknown>>>;
  /** Resolves with its exit code (or signal) once it has ended and all it wrote has been read. */
  readonly exited: Promise<number | NodeJS.Signals>;
  signal(signal: NodeJS.Signals): void;
}

const PORT_VARIABLE: Record<Role, string | undefined> = {
  facade: 'FACADE_PORT',
  core: 'CORE_PORT',
  inference: 'INFERENCE_PORT',
  migrate: undefined,
};

export interface StartOptions {
  /**
   * Core: whether to wait, once it listens, until its `readiness` check answers SERVING (its migrations and
   * first catalog load have ended), as the chart's readinessProbe does before sending it work. True unless a
   * test wants core while it is still starting. Migrate: whether to wait until it has run (exit 0); false
   * answers it running.
   */
  readonly ready?: boolean;
}

/**
 * Starts a role and waits until it listens — core also until it is ready (`options.ready`) — or, migrate,
 * until it has run; on a free port unless given one.
 */
export async function startProcess(
  role: Role,
  env: NodeJS.ProcessEnv,
  port?: number,
  options: StartOptions = {},
): Promise<RunningProcess> {
  port ??= await freePort();
  const variable = PORT_VARIABLE[role];
  const child = spawn(process.execPath, ['scripts/role.ts', role], {
    env: {
      PATH: process.env.PATH,
      LOG_LEVEL: 'info',
      ...env,
      ...(variable ? { [variable]: String(port) } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Also into the test logs, which the root hook searches for secrets after the run (test/hooks.ts).
  mkdirSync(LOG_DIR, { recursive: true });
  const file = createWriteStream(join(LOG_DIR, `process-${role}-${port}-${child.pid}.log`));
  let text = '';
  for (const stream of [child.stdout!, child.stderr!]) {
    stream.on('data', (chunk) => {
      text += chunk;
      file.write(chunk);
    });
  }
  // 'close', not 'exit': at 'exit' the pipes may still hold lines a test is about to count.
  const exited = new Promise<number | NodeJS.Signals>((done) =>
    child.once('close', (code, signal) => {
      file.end();
      done(code ?? signal!);
    }),
  );
  const running: RunningProcess = {
    role,
    port,
    url: `http://127.0.0.1:${port}`,
    child,
    output: () => text,
    logged: (message) =>
      text
        .split('\n')
        .slice(0, -1) // what follows the last newline is a line still being written
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((entry) => message.test(String(entry.msg))),
    untilLogged: (message, timeoutMs) =>
      until(`${role} to log ${message}`, () => running.logged(message).length > 0, timeoutMs).then(() =>
        running.logged(message),
      ),
    exited,
    signal: (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
  if (role === 'migrate' && options.ready !== false) {
    const code = await exited;
    if (code !== 0) throw new Error(`migrate exited ${code}: ${text}`);
    return running;
  }
  if (role === 'migrate') return running;
  const ended = () => child.exitCode !== null || child.signalCode !== null;
  if (!(await waitForPort(port, 60_000, ended))) throw new Error(`${role} did not start: ${text}`);
  // Listening is not serving: core answers `unavailable` until its migrations have ended and the catalog's
  // calls `catalog_unavailable` until its first load has.
  if (role === 'core' && options.ready !== false && !(await waitForReady(port, 60_000, ended)))
    throw new Error(`core did not become ready: ${text}`);
  return running;
}

/**
 * What the service's processes need on a database of a test's own: its data directory, the database, and
 * the secrets every core replica shares (the token pepper, the ALTCHA key), fresh for the test.
 */
export function serviceEnv(dataDir: string, databaseUrl: string) {
  return {
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    TOKEN_PEPPER: randomBytes(32).toString('hex'),
    ALTCHA_HMAC_KEY: randomBytes(32).toString('hex'),
  };
}

/** Ends every process still running (SIGCONT first, in case a test paused it), and waits for each. */
export async function stopAll(processes: Iterable<RunningProcess>): Promise<void> {
  await Promise.all(
    [...processes].map(async (p) => {
      p.signal('SIGCONT');
      p.signal('SIGKILL');
      await p.exited;
    }),
  );
}

/** Polls `check` until it answers something truthy, or fails after `timeoutMs`. */
export async function until<T>(what: string, check: () => Promise<T> | T, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** grpc.health.v1's overall status of a core or inference process, on a connection of its own. */
export async function grpcHealth(url: string): Promise<HealthCheckResponse_ServingStatus | 'unreachable'> {
  const health = createClient(Health, createConnectTransport({ baseUrl: url, httpVersion: '2' }));
  return health
    .check({}, { timeoutMs: 2000 })
    .then((r) => r.status)
    .catch(() => 'unreachable' as const);
}
