/**
 * The database for operator commands: DATABASE_URL, or the embedded PostgreSQL of `npm start` — its
 * running server if there is one, otherwise started for the duration of the command.
 */
import { join } from 'node:path';
import { runningEmbeddedUrl, startEmbeddedPostgres } from '../services/core/db/embedded.ts';
import { migrate, type Orm, openDatabase } from '../services/core/db/orm.ts';
import { loadConfig } from '../services/shared/config.ts';

export const EMBEDDED_PG_PORT = Number(process.env.EMBEDDED_PG_PORT ?? 54320);

export async function withDatabase<T>(work: (orm: Orm) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const pgDir = join(config.dataDir, 'pg');
  const running = config.databaseUrl ?? runningEmbeddedUrl(pgDir, EMBEDDED_PG_PORT);
  const temporary = running ? undefined : await startEmbeddedPostgres(pgDir, EMBEDDED_PG_PORT);
  const orm = await openDatabase(running ?? temporary!.url);
  try {
    await migrate(orm);
    return await work(orm);
  } finally {
    await orm.close();
    await temporary?.stop();
  }
}
