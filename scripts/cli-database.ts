/**
 * The database for operator commands: DATABASE_URL, or the embedded PostgreSQL of `npm start` — its
 * running server if there is one, otherwise started for the duration of the command. With
 * NODE_ENV=production, DATABASE_URL only: the configuration is refused without it.
 *
 * A command stops with one line, never a stack trace, and an exit status a script can tell apart from the
 * command's own answers: 78 when the configuration is refused (as the processes do), 3 when the database
 * cannot be reached or fails during the work (`failure` says what that means for the command).
 */
import { join } from 'node:path';
import { runningEmbeddedUrl, startEmbeddedPostgres } from '../services/core/db/embedded.ts';
import { migrate, type Orm, openDatabase } from '../services/core/db/orm.ts';
import { loadOperatorConfig } from '../services/shared/config.ts';
import { loadOrExit } from '../services/shared/env-reader.ts';

/** The database could not be reached, or failed during the command. */
export const EXIT_DATABASE = 3;

export interface CommandOptions {
  /** The command's name, first on its error line. */
  readonly name: string;
  /** What a failure during the work leaves behind, for the operator (appended to the error line). */
  readonly failure?: string;
}

export async function withDatabase<T>(command: CommandOptions, work: (orm: Orm) => Promise<T>): Promise<T> {
  const config = loadOrExit(command.name, loadOperatorConfig);
  const pgDir = join(config.dataDir, 'pg');
  try {
    const running = config.databaseUrl ?? runningEmbeddedUrl(pgDir, config.embeddedPgPort);
    const temporary = running ? undefined : await startEmbeddedPostgres(pgDir, config.embeddedPgPort);
    const orm = await openDatabase(running ?? temporary!.url);
    try {
      await migrate(orm);
      return await work(orm);
    } finally {
      await orm.close().catch(() => undefined);
      await temporary?.stop();
    }
  } catch (err) {
    // pg's messages name the host and port, never the password of the connection string.
    const why = (err as Error).message || String(err);
    process.stderr.write(
      `${command.name}: the database failed: ${why}${command.failure ? `. ${command.failure}` : ''}\n`,
    );
    process.exit(EXIT_DATABASE);
  }
}
