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
    drop: () => admin(serverUrl!, `drop database if exists ${name} with (force)`),
  };
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
