/**
 * The service's processes on one fresh test database, as replicas share it in a deployment: a data
 * directory, the database migrated, and the secrets every core and façade must share (the token pepper,
 * the ALTCHA key), so that whichever replica is started here reads what another wrote. `stop` ends the
 * processes, then removes the database and the directory.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Orm, openDatabase } from '../../services/core/db/orm.ts';
import { createTestDatabase } from './database.ts';
import { type Role, type RunningProcess, startProcess, stopAll } from './processes.ts';

export interface ProcessCluster {
  /** What every process here starts with (DATA_DIR, DATABASE_URL and the shared secrets); a test may add to it. */
  readonly env: NodeJS.ProcessEnv;
  /** The test's own connection to the database. */
  readonly orm: Orm;
  /** The processes `stop` will end; a test that kills one itself takes it out. */
  readonly running: Set<RunningProcess>;
  sql<T>(query: string, params?: unknown[]): Promise<T[]>;
  /** Starts a role with the cluster's environment and `extra` over it; on a free port unless given one. */
  start(role: Role, extra?: NodeJS.ProcessEnv, port?: number): Promise<RunningProcess>;
  stop(): Promise<void>;
}

/** A new cluster, migrated; `name` marks its data directory. */
export async function startCluster(name: string): Promise<ProcessCluster> {
  const dir = mkdtempSync(join(tmpdir(), `skinmatch-${name}-`));
  const running = new Set<RunningProcess>();
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let orm: Orm | undefined;
  const stop = async () => {
    await stopAll(running);
    await orm?.close();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    database = await createTestDatabase();
    const env: NodeJS.ProcessEnv = {
      DATA_DIR: dir,
      DATABASE_URL: database.url,
      TOKEN_PEPPER: randomBytes(32).toString('hex'),
      ALTCHA_HMAC_KEY: randomBytes(32).toString('hex'),
    };
    const start = async (role: Role, extra: NodeJS.ProcessEnv = {}, port?: number) => {
      const process = await startProcess(role, { ...env, ...extra }, port);
      running.add(process);
      return process;
    };
    await start('migrate');
    orm = await openDatabase(database.url);
    const connection = orm.em.getConnection();
    return {
      env,
      orm,
      running,
      sql: <T>(query: string, params: unknown[] = []) => connection.execute(query, params) as Promise<T[]>,
      start,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
