import assert from 'node:assert/strict';
import pg from 'pg';
import type { AnalysisEvent, Analyzer } from '../../services/scan/analyzer.ts';
import { singleFace } from '../inference/support/photos.ts';
import { callTool } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';
import { pageScan, postPhoto } from './scan-page-support.ts';

/**
 * What PostgreSQL shows of a statement — pg_stat_activity's `query` (read by monitoring agents that sample
 * it), and the server's log of a statement that fails, is cancelled or runs longer than
 * `log_min_duration_statement` — is its text. The person's photo and a scan token's hash must travel as
 * bound parameters, never inside that text: the server log and monitoring keep what they saw long after
 * the scan is deleted. Each test holds a lock the statement waits for, so its text can be read while it
 * waits.
 */
/** An analysis that waits, once its progress is recorded, until the test lets it give its scores. */
class HeldAnalyzer implements Analyzer {
  held = 0;
  #release?: () => void;

  release() {
    this.#release?.();
  }

  async *analyze(): AsyncIterable<AnalysisEvent> {
    yield { kind: 'progress', stage: 'measuring', percent: 60 };
    this.held++;
    await new Promise<void>((resolve) => {
      this.#release = resolve;
    });
    yield { kind: 'result', scores: { redness: 37, acne: 81 }, concerns: ['redness'] };
  }
}

describe('photos, token hashes and scores are never in a statement’s text', function () {
  this.timeout(60_000);
  const analyzer = new HeldAnalyzer();
  let stack: Stack;
  let blocker: pg.Client;
  /** Outside the blocker's transaction: a transaction reads pg_stat_activity once and keeps that snapshot. */
  let observer: pg.Client;

  before(async () => {
    stack = await startStack('photo-statement-text', { analyzer });
    blocker = new pg.Client({ connectionString: stack.databaseUrl });
    observer = new pg.Client({ connectionString: stack.databaseUrl });
    await Promise.all([blocker.connect(), observer.connect()]);
  });
  after(async () => {
    await blocker?.end();
    await observer?.end();
    await stack?.close();
  });

  const query = async (text: string, params: unknown[] = []) => (await observer.query(text, params)).rows;

  /** The text of the statement waiting for a lock that mentions `table`, once one does. */
  async function waitingStatement(table: string): Promise<string> {
    for (let waited = 0; waited < 20_000; waited += 25) {
      const { rows } = await observer.query<{ query: string }>(
        `select query from pg_stat_activity
         where datname = current_database() and wait_event_type = 'Lock' and query ilike $1`,
        [`%${table}%`],
      );
      if (rows[0]) return rows[0].query;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`no statement on ${table} waited for the lock`);
  }

  it('the upload page’s photo: the insert into scan_photos carries no byte of it', async () => {
    const photo = await singleFace('a');
    const scan = await pageScan(stack.baseUrl);
    // An uncommitted photo row for the same scan: the upload's insert waits for it on the primary key.
    await blocker.query('begin');
    await blocker.query(
      `insert into scan_photos (run_id, image, content_type, uploaded_at) values ($1, '\\x00', 'image/jpeg', now())`,
      [scan.run_id],
    );
    const sent = postPhoto(stack.baseUrl, scan.run_id, photo, { secret: scan.secret });
    let text: string;
    try {
      text = await waitingStatement('scan_photos');
    } finally {
      await blocker.query('rollback');
    }
    const res = await sent;
    assert.equal(res.status, 202, await res.text());
    // The photo as stored (the upload's checks re-encode it): not one run of its bytes in the text.
    const { rows } = await observer.query('select image from scan_photos where run_id = $1', [scan.run_id]);
    const stored = (rows[0].image as Buffer).subarray(0, 32).toString('hex');
    assert.ok(!text.includes(stored), `the photo's bytes are in the statement: ${text.slice(0, 200)}…`);
    assert.doesNotMatch(text, /\\x[0-9a-f]{16}/i);
  });

  it('the scan worker’s outcome: the update of the scan carries none of its scores', async () => {
    // The photo above is under analysis, held once its progress is recorded.
    for (let waited = 0; analyzer.held === 0 && waited < 20_000; waited += 25)
      await new Promise((r) => setTimeout(r, 25));
    const [{ id }] = await query("select id from scans where status = 'analyzing'");
    // Writes to scans wait (SHARE conflicts with ROW EXCLUSIVE); the outcome's row lock does not.
    await blocker.query('begin');
    await blocker.query('lock table scans in share mode');
    analyzer.release();
    let text: string;
    try {
      text = await waitingStatement('update scans set status');
    } finally {
      await blocker.query('rollback');
    }
    assert.doesNotMatch(text, /redness|acne|\b37\b|\b81\b/, text);
    for (let waited = 0; waited < 20_000; waited += 25) {
      const [scan] = await query('select status, scores from scans where id = $1', [id]);
      if (scan.status === 'complete') return assert.deepEqual(scan.scores, { redness: 37, acne: 81 });
      await new Promise((r) => setTimeout(r, 25));
    }
    assert.fail('the scan did not complete');
  });

  it('start_skin_scan: the insert into scans carries no token hash', async () => {
    // A table lock that row inserts wait for (SHARE conflicts with ROW EXCLUSIVE), reads go on.
    await blocker.query('begin');
    await blocker.query('lock table scans in share mode');
    const started = callTool(stack.baseUrl, 'start_skin_scan', { source: 'statement text' });
    try {
      const text = await waitingStatement('insert into%scans');
      assert.doesNotMatch(text, /[0-9a-f]{64}/i, `a 64-hex value is in the statement: ${text}`);
    } finally {
      await blocker.query('rollback');
    }
    assert.match((await started).structuredContent.access_token, /^[0-9a-f]{64}$/);
  });
});
