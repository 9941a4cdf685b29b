import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ACCOUNT_PURGE_TASK } from '../../services/account/account-purge.ts';
import { PURGE_TASK } from '../../services/scan/scan-purge.ts';
import { completeScan, RED_ACNE_SCORES, TEST_CATALOG, uploadPhoto } from '../support/fixtures.ts';
import { callTool, errorCode } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;
const PHOTO = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);

interface Scan {
  run_id: string;
  access_token: string;
}

/**
 * The purge runs as core's scheduled graphile-worker job. The tests enqueue that job by hand (the cron
 * tick is every ten minutes) and let the running core's worker execute it on the stack's clock, then look
 * at every table in SQL.
 */
describe('the purge of expired and abandoned scans', function () {
  this.timeout(60_000);

  const sql = async (stack: Stack, text: string, params: unknown[] = []): Promise<any[]> =>
    stack.orm.em.getConnection().execute(text, params);
  const start = async (stack: Stack): Promise<Scan> => {
    const { run_id, access_token } = (
      await callTool(stack.baseUrl, 'start_skin_scan', { source: 'purge-test' })
    ).structuredContent;
    return { run_id, access_token };
  };
  const exists = async (stack: Stack, scan: Scan) =>
    (await sql(stack, 'select 1 from scans where id = ?', [scan.run_id])).length === 1;

  /** Runs the purge job in the running core and waits until the worker has finished it. */
  async function purge(stack: Stack): Promise<void> {
    const [job] = await sql(stack, `select (graphile_worker.add_job(?)).id`, [PURGE_TASK]);
    for (let waited = 0; waited < 20_000; waited += 50) {
      const left = await sql(stack, 'select last_error from graphile_worker.jobs where id = ?', [job!.id]);
      if (left.length === 0) return;
      assert.equal(left[0]!.last_error, null, 'the purge job failed');
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('the purge job did not run');
  }

  async function ownBy(stack: Stack, scan: Scan): Promise<string> {
    const account = randomUUID();
    await sql(stack, 'insert into accounts (id, created_at) values (?, now())', [account]);
    await sql(stack, 'update scans set account_id = ? where id = ?', [account, scan.run_id]);
    return account;
  }

  describe('with the default bound (seven days, the token’s lifetime)', () => {
    let stack: Stack;
    before(async () => {
      stack = await startStack('scan-purge', { products: TEST_CATALOG });
    });
    after(async () => stack?.close());

    it('is scheduled in graphile-worker’s crontab', async () => {
      // The scheduler registers its crontab shortly after the worker starts.
      let identifiers: string[] = [];
      for (let waited = 0; identifiers.length === 0 && waited < 10_000; waited += 50) {
        const rows = await sql(stack, 'select identifier from graphile_worker._private_known_crontabs');
        identifiers = rows.map((row) => row.identifier);
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.deepEqual(identifiers.sort(), [ACCOUNT_PURGE_TASK, PURGE_TASK].sort());
    });

    it('every table that refers to a scan goes with it (on delete cascade)', async () => {
      const refs = await sql(
        stack,
        `select conrelid::regclass::text as "table", confdeltype as "onDelete" from pg_constraint
         where contype = 'f' and confrelid = 'scans'::regclass order by 1`,
      );
      assert.ok(refs.length >= 2, 'photos and match allowances at least');
      for (const ref of refs) assert.equal(ref.onDelete, 'c', `${ref.table} cascades`);
    });

    it('finds due scans by an index, not by reading the whole table', async () => {
      // With sequential scans priced out, a plan still reading the table means no index can serve it.
      const plan = (condition: string) =>
        stack.orm.em.fork().transactional(async (tx) => {
          const conn = tx.getConnection();
          await conn.execute('set local enable_seqscan = off');
          const rows = await conn.execute(`explain select id from scans where ${condition}`, [new Date()]);
          return rows.map((row: Record<string, string>) => Object.values(row)[0]).join('\n');
        });
      assert.match(await plan('account_id is null and expires_at <= ?'), /scans_guest_expiry_idx/);
      assert.match(await plan("status = 'awaiting_upload' and created_at <= ?"), /scans_awaiting_upload_idx/);
    });

    it('deletes a guest scan at its expiry with its photo, queued job and match allowance; keeps the rest', async () => {
      const queued = await start(stack);
      await uploadPhoto(stack.orm, queued.run_id, PHOTO);
      const matched = await start(stack);
      await completeScan(stack.orm, matched.run_id, RED_ACNE_SCORES);
      const rec = await callTool(stack.baseUrl, 'recommend_products', matched);
      assert.ok(rec.structuredContent.products.length > 0);
      const waiting = await start(stack);
      const owned = await start(stack);
      await completeScan(stack.orm, owned.run_id, RED_ACNE_SCORES);
      await ownBy(stack, owned);
      const expiring = [queued, matched, waiting];
      const ids = expiring.map((s) => s.run_id);
      assert.equal(
        (await sql(stack, 'select 1 from scan_photos where run_id = ?', [queued.run_id])).length,
        1,
      );
      assert.equal(
        (await sql(stack, 'select 1 from scan_matches where run_id = ?', [matched.run_id])).length,
        1,
      );
      assert.equal(
        (await sql(stack, 'select 1 from graphile_worker.jobs where key = ?', [queued.run_id])).length,
        1,
      );

      // A minute before expiry nothing goes.
      stack.clock.offsetMs = 7 * DAY_MS - 60_000;
      await purge(stack);
      for (const scan of [...expiring, owned]) assert.ok(await exists(stack, scan), scan.run_id);
      const later = await start(stack); // started six days and 23 hours after the others

      stack.clock.offsetMs = 7 * DAY_MS;
      await purge(stack);
      assert.deepEqual(await sql(stack, 'select id from scans where id = any(?::uuid[])', [`{${ids}}`]), []);
      assert.deepEqual(
        await sql(stack, 'select run_id from scan_photos where run_id = any(?::uuid[])', [`{${ids}}`]),
        [],
      );
      assert.deepEqual(
        await sql(stack, 'select run_id from scan_matches where run_id = any(?::uuid[])', [`{${ids}}`]),
        [],
      );
      assert.deepEqual(
        await sql(stack, 'select id from graphile_worker.jobs where key = any(?::text[])', [`{${ids}}`]),
        [],
      );
      // An account's scan has no token expiry; a scan started later is not due yet.
      assert.ok(await exists(stack, owned), 'the account keeps its scan');
      assert.ok(await exists(stack, later), 'a younger scan stays');
      assert.equal(errorCode(await callTool(stack.baseUrl, 'get_skin_scan', later)), undefined);
    });
  });

  describe('with a bound of one hour for scans that never got a photo', () => {
    let stack: Stack;
    before(async () => {
      stack = await startStack('scan-purge-abandoned', { abandonedAfterMs: HOUR_MS });
    });
    after(async () => stack?.close());

    it('deletes scans still awaiting their photo past the bound, account scans included; uploaded ones stay', async () => {
      const abandoned = await start(stack);
      const abandonedOwned = await start(stack);
      await ownBy(stack, abandonedOwned);
      const uploaded = await start(stack);
      await uploadPhoto(stack.orm, uploaded.run_id, PHOTO);
      const completeOwned = await start(stack);
      await completeScan(stack.orm, completeOwned.run_id, RED_ACNE_SCORES);
      await ownBy(stack, completeOwned);

      stack.clock.offsetMs = HOUR_MS - 60_000;
      await purge(stack);
      for (const scan of [abandoned, abandonedOwned, uploaded, completeOwned])
        assert.ok(await exists(stack, scan));

      stack.clock.offsetMs = HOUR_MS;
      await purge(stack);
      assert.equal(await exists(stack, abandoned), false);
      assert.equal(await exists(stack, abandonedOwned), false);
      assert.equal(errorCode(await callTool(stack.baseUrl, 'get_skin_scan', abandoned)), 'not_found');
      assert.ok(await exists(stack, uploaded), 'a scan with its photo is not abandoned');
      assert.ok(await exists(stack, completeOwned));
      const line = /"expired":0,"abandoned":2,"orphanJobs":0,"msg":"purged expired and abandoned scans"/;
      // The log file's stream may not have flushed the line yet.
      for (let waited = 0; !line.test(readFileSync(stack.logFile, 'utf8')) && waited < 5000; waited += 50)
        await new Promise((r) => setTimeout(r, 50));
      assert.match(readFileSync(stack.logFile, 'utf8'), line);
    });
  });
});
