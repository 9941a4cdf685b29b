/**
 * `npm start` (scripts/start.ts) run as a terminal runs it: a foreground job in its own process group, on
 * free ports and a data directory of the test's, its embedded PostgreSQL included.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitForPort } from '../../scripts/port.ts';

export interface NpmStart {
  readonly child: ChildProcess;
  readonly ports: { facade: number; core: number; inference: number; postgres: number };
  /** Each process's metrics port. */
  readonly metricsPorts: { facade: number; core: number; inference: number };
  /** Everything it has printed so far (its processes' lines prefixed with their names). */
  output(): string;
  /** The two development identity providers' ports, from its output. */
  idpPorts(): number[];
  /** The embedded PostgreSQL's process id (its postmaster.pid). */
  postgresPid(): number;
}

/** A data directory PostgreSQL's own user can reach (mkdtemp makes it private to root). */
export function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'skinmatch-data-'));
  chmodSync(dir, 0o755);
  return dir;
}

/**
 * Starts `npm start` on `dir` and resolves once it has said that skinmatch is up: the supervisor itself, or
 * (`via: 'npm'`) through npm as a person types it, npm's process then being `child`.
 */
export async function npmStart(
  dir: string,
  via: 'node' | 'npm' = 'node',
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<NpmStart> {
  const [facade, core, inference, postgres] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  const metricsPorts = { facade: await freePort(), core: await freePort(), inference: await freePort() };
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dir,
    FACADE_PORT: String(facade),
    CORE_PORT: String(core),
    INFERENCE_PORT: String(inference),
    EMBEDDED_PG_PORT: String(postgres),
    // Free metrics ports too: the defaults may be taken by another checkout's run on this machine.
    FACADE_METRICS_PORT: String(metricsPorts.facade),
    CORE_METRICS_PORT: String(metricsPorts.core),
    INFERENCE_METRICS_PORT: String(metricsPorts.inference),
    LOG_LEVEL: 'warn',
    ...extraEnv,
  };
  delete env.DATABASE_URL;
  // Its own process group, as a terminal runs a foreground job: Ctrl-C then reaches the whole group.
  const [command, args] = via === 'npm' ? ['npm', ['start']] : [process.execPath, ['scripts/start.ts']];
  const child = spawn(command, args, {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout!.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    output += chunk;
  });
  const started: NpmStart = {
    child,
    ports: { facade, core, inference, postgres },
    metricsPorts,
    output: () => output,
    idpPorts: () =>
      [...output.matchAll(/dev identity provider "Dev provider \d" at http:\/\/127\.0\.0\.1:(\d+)/g)].map(
        (m) => Number(m[1]),
      ),
    postgresPid: () => Number(readFileSync(join(dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]),
  };
  try {
    if (!(await waitForPort(facade, 90_000))) throw new Error(`the façade did not listen:\n${output}`);
    const deadline = Date.now() + 30_000;
    while (!output.includes('skinmatch is up') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    if (!output.includes('skinmatch is up')) throw new Error(`npm start did not say it is up:\n${output}`);
  } catch (err) {
    stopGroup(child);
    throw err;
  }
  return started;
}

/** Whether a process runs (signal 0). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Kills npm start's whole group outright, if it still runs (a failed test's cleanup). */
export function stopGroup(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {}
}
