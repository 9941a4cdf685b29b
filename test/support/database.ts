/**
 * The tests' PostgreSQL: DATABASE_URL when set, otherwise the embedded server under .data/test-pg. Each run
 * gets a fresh database, dropped at the end, so runs never see each other's rows.
 */
import { resolve } from 'node:path';
import pg from 'pg';
import { freePort } from '../../scripts/port.ts';
import { type EmbeddedDatabase, startEmbeddedPostgres } from '../../services/core/db/embedded.ts';

let embedded: EmbeddedDatabase | undefined;
let serverUrl: string | undefined;

/** A new, empty database for one test file. */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  serverUrl ??= await serverUrlOnce();
  const name = `skinmatch_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  await admin(serverUrl, `create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      // A pool a test just ended may still be closing its connections; forcing them off first would reach
      // that pool as an uncaught "terminating connection due to administrator command".
      await untilUnused(serverUrl!, name);
      await admin(serverUrl!, `drop database if exists ${name} with (force)`);
    },
  };
}

/** Waits (up to 5 s) until no session is connected to the database. */
async function untilUnused(url: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (let waited = 0; waited < 5000; waited += 50) {
      const { rows } = await client.query<{ n: number }>(
        'select count(*)::int as n from pg_stat_activity where datname = $1',
        [name],
      );
      if (rows[0]!.n === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await client.end();
  }
}

async function serverUrlOnce(): Promise<string> {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  // A free port each run, so a second checkout testing on the same machine never collides with this one.
  embedded = await startEmbeddedPostgres(resolve('.data/test-pg'), await freePort());
  return embedded.url;
}

async function admin(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export async function stopTestDatabaseServer(): Promise<void> {
  await embedded?.stop();
  embedded = undefined;
  serverUrl = undefined;
}
