/**
 * The LISTEN connection through a database outage: one attempt to listen again a second, never a
 * doubling storm of them (a failed connect also ends its client, and both once scheduled a retry: after
 * half a minute of outage a process held 2^30 timers and ran out of memory), and listening again once the
 * database is back.
 */
import assert from 'node:assert/strict';
import pg from 'pg';
import { createLogger } from '../../services/shared/logger.ts';
import { Notifications } from '../../services/shared/notifications.ts';
import { createTestDatabase } from '../support/database.ts';

async function admin(url: string, sql: string) {
  const server = new URL(url);
  server.pathname = '/postgres';
  const client = new pg.Client({ connectionString: server.toString() });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

describe('notifications through a database outage', () => {
  it('retries once a second while the database is gone, and listens again when it is back', async () => {
    const db = await createTestDatabase();
    const name = new URL(db.url).pathname.slice(1);
    const lines: string[] = [];
    const logger = createLogger('notifications-test', 'warn', { write: (line: string) => lines.push(line) });
    const notifications = new Notifications(db.url, ['scan_changed'], logger);
    try {
      await notifications.start();
      // The database goes away under the listening connection: every attempt to listen again fails.
      await admin(db.url, `drop database ${name} with (force)`);
      await new Promise((resolve) => setTimeout(resolve, 3500));
      const failures = lines.filter((line) => line.includes('notification listener could not reconnect'));
      assert.ok(failures.length >= 1 && failures.length <= 4, `${failures.length} attempts in 3.5 s`);

      await admin(db.url, `create database ${name}`);
      const heard = new Promise<string>((resolve) => notifications.on('scan_changed', resolve));
      const sender = new pg.Client({ connectionString: db.url });
      await sender.connect();
      try {
        let payload: string | undefined;
        for (let i = 0; i < 60 && payload === undefined; i++) {
          await sender.query(`select pg_notify('scan_changed', 'back')`);
          payload = await Promise.race([
            heard,
            new Promise<undefined>((r) => setTimeout(() => r(undefined), 100)),
          ]);
        }
        assert.equal(payload, 'back');
      } finally {
        await sender.end();
      }
    } finally {
      await notifications.close();
      await db.drop();
    }
  });
});
