import assert from 'node:assert/strict';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { ScanService } from '../../gen/skinmatch/v1/scan_pb.ts';
import { ScanStatus } from '../../gen/skinmatch/v1/scan_types_pb.ts';
import { plainSql } from '../../services/core/db/plain-sql.ts';
import { analysisBacklog } from '../../services/scan/admissions-governor.ts';
import type { AnalysisEvent, Analyzer } from '../../services/scan/analyzer.ts';
import { uploadPhoto } from '../support/fixtures.ts';
import { callTool, untilScan } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

/**
 * A stand-in for the inference service whose stream the test drives: each analysis waits for `release`
 * before its final event, so the test can look at the scan mid-analysis; `failNext` makes the next
 * analyses die mid-stream as a crashed inference process would.
 */
class ScriptedAnalyzer implements Analyzer {
  failNext = 0;
  calls = 0;
  /** Analyses whose call was aborted while they waited. */
  aborted = 0;
  #releases: (() => void)[] = [];
  outcome: AnalysisEvent = { kind: 'result', scores: { redness: 40, acne: 80 }, concerns: ['redness'] };

  release() {
    for (const release of this.#releases.splice(0)) release();
  }

  /** Analyses waiting for `release` (each has recorded its progress up to 60 %). */
  get waiting(): number {
    return this.#releases.length;
  }

  async *analyze(_image: Uint8Array, signal: AbortSignal): AsyncIterable<AnalysisEvent> {
    this.calls++;
    yield { kind: 'progress', stage: 'detecting_face', percent: 20 };
    yield { kind: 'progress', stage: 'measuring', percent: 60 };
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('inference connection reset');
    }
    await new Promise<void>((resolve, reject) => {
      this.#releases.push(resolve);
      signal.addEventListener('abort', () => {
        this.#releases.splice(this.#releases.indexOf(resolve), 1);
        this.aborted++;
        reject(signal.reason);
      });
    });
    yield this.outcome;
  }
}

const STATUS_NAMES: Record<number, string> = Object.fromEntries(
  Object.entries(ScanStatus).map(([k, v]) => [v, k]),
);
const PHOTO = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);

/**
 * Long enough that the cases which read a scan inside its retry window (waiting between tries at 1.5 s,
 * completing on the 2nd try) are still inside it on a loaded machine: at 3 s the window could end first.
 */
const RETRY_WINDOW_MS = 6000;

describe('the scan worker', () => {
  let stack: Stack;
  const analyzer = new ScriptedAnalyzer();

  before(async () => {
    // A failed analysis is tried again every half second, for RETRY_WINDOW_MS (production: for 30 minutes).
    stack = await startStack('scan-worker', {
      analyzer,
      analysisRetry: { windowMs: RETRY_WINDOW_MS, firstMs: 500, maxMs: 500 },
    });
  });
  after(async () => {
    analyzer.release();
    await stack?.close();
  });

  const newScan = async () => {
    const started = await callTool(stack.baseUrl, 'start_skin_scan', { source: 'worker' });
    return { run_id: started.structuredContent.run_id, access_token: started.structuredContent.access_token };
  };
  const until = (scan: object, check: (s: any) => boolean, timeoutMs = 15_000) =>
    untilScan(stack.baseUrl, scan, check, timeoutMs);
  const photoCount = async (runId: string) =>
    Number(
      (
        await stack.orm.em
          .getConnection()
          .execute('select count(*) as n from scan_photos where run_id = ?', [runId])
      )[0]!.n,
    );

  it('shows live progress through get_skin_scan, then completes and deletes the photo', async () => {
    const scan = await newScan();
    await uploadPhoto(stack.orm, scan.run_id, PHOTO);
    const mid = await until(scan, (s) => s.progress === 60 && analyzer.waiting === 1);
    assert.deepEqual(
      { status: mid.status, stage: mid.stage, next_action: mid.next_action, retry: mid.retry_after_seconds },
      { status: 'analyzing', stage: 'measuring', next_action: 'poll', retry: 1 },
    );
    assert.equal(await photoCount(scan.run_id), 1);
    analyzer.release();
    const done = await until(scan, (s) => s.status === 'complete');
    assert.deepEqual(done.scores, { redness: 40, acne: 80 });
    assert.deepEqual(done.scan_concerns, ['redness']);
    assert.equal(done.next_action, 'recommend_products');
    assert.equal(done.progress, 100);
    assert.equal(await photoCount(scan.run_id), 0, 'the photo is gone once analysis ends');
  });

  const releaseWhenWaiting = async () => {
    for (let waited = 0; analyzer.waiting === 0 && waited < 10_000; waited += 10)
      await new Promise((r) => setTimeout(r, 10));
    analyzer.release();
  };

  it('WatchScan streams every step the worker records to a gRPC caller', async () => {
    const scan = await newScan();
    const scans = createClient(ScanService, createGrpcTransport({ baseUrl: stack.coreUrl }));
    const seen: string[] = [];
    const watching = (async () => {
      for await (const { scan: s } of scans.watchScan({
        runId: scan.run_id,
        accessToken: scan.access_token,
      })) {
        seen.push(`${STATUS_NAMES[s!.status]}:${s!.stage}:${s!.progress}`);
        if (s!.progress === 60) void releaseWhenWaiting();
      }
    })();
    // Upload only once the stream has shown the scan as it was.
    for (let waited = 0; seen.length === 0 && waited < 10_000; waited += 10)
      await new Promise((r) => setTimeout(r, 10));
    await uploadPhoto(stack.orm, scan.run_id, PHOTO);
    await watching;
    assert.equal(seen[0], 'AWAITING_UPLOAD::0');
    assert.equal(seen.at(-1), 'COMPLETE::100');
    assert.ok(seen.includes('ANALYZING:measuring:60'), seen.join(' '));
  });

  it('an unusable photo fails with its reason and asks for a retake', async () => {
    analyzer.outcome = { kind: 'failure', reason: 'too_dark' };
    try {
      const scan = await newScan();
      await uploadPhoto(stack.orm, scan.run_id, PHOTO);
      await until(scan, (s) => s.stage === 'measuring' && analyzer.waiting === 1);
      analyzer.release();
      const failed = await until(scan, (s) => s.status === 'failed');
      assert.equal(failed.failure_reason, 'too_dark');
      assert.equal(failed.next_action, 'ask_person_to_retake');
      assert.equal(await photoCount(scan.run_id), 0);
    } finally {
      analyzer.outcome = { kind: 'result', scores: { redness: 40, acne: 80 }, concerns: ['redness'] };
    }
  });

  it('analysis dying mid-stream is retried, and the scan still completes', async function () {
    this.timeout(30_000);
    analyzer.failNext = 1;
    const calls = analyzer.calls;
    const scan = await newScan();
    await uploadPhoto(stack.orm, scan.run_id, PHOTO);
    // Release only once the second attempt is waiting for it: it shows the 60 % the first reached (its
    // 20 % does not take the scan back), at the stage that reached it.
    await until(scan, () => analyzer.calls === calls + 2 && analyzer.waiting === 1, 20_000);
    const again = (await callTool(stack.baseUrl, 'get_skin_scan', scan)).structuredContent;
    analyzer.release();
    assert.deepEqual([again.status, again.stage, again.progress], ['analyzing', 'measuring', 60]);
    const done = await until(scan, (s) => s.status === 'complete');
    assert.deepEqual(done.scores, { redness: 40, acne: 80 });
  });

  it('once the retry window is over the scan fails with analysis_unavailable, never stuck in analyzing, and the photo is not blamed', async function () {
    this.timeout(30_000);
    analyzer.failNext = 1000;
    const calls = analyzer.calls;
    const scan = await newScan();
    const uploaded = performance.now();
    let failed: any;
    try {
      await uploadPhoto(stack.orm, scan.run_id, PHOTO);
      const between = await until(scan, (s) => s.status === 'queued' && s.stage === 'retrying');
      assert.deepEqual([between.progress, between.next_action], [60, 'poll']);
      // Each try is a fresh job; the backlog's age (admissions, metrics) still counts from the photo.
      await new Promise((r) => setTimeout(r, Math.max(0, 1500 - (performance.now() - uploaded))));
      const backlog = await analysisBacklog(await plainSql(stack.orm));
      assert.ok(backlog.oldestAgeSeconds >= 1.2, `the backlog is ${backlog.oldestAgeSeconds} s old`);
      failed = await until(scan, (s) => s.status === 'failed', 20_000);
    } finally {
      analyzer.failNext = 0;
    }
    // Tried again every 0.5 s (and graphile-worker's poll) until the window was over, not before.
    assert.ok(analyzer.calls - calls >= 3, `${analyzer.calls - calls} attempts`);
    assert.ok(performance.now() - uploaded >= RETRY_WINDOW_MS);
    assert.equal(failed.failure_reason, 'analysis_unavailable');
    // Not ask_person_to_retake: the link again, for the same photo.
    assert.equal(failed.next_action, 'share_upload_url');
    assert.equal(failed.upload_url, `${stack.baseUrl}/scan/${scan.run_id}`);
    assert.equal(await photoCount(scan.run_id), 0);
  });

  it('a scan deleted while queued is dropped by the worker without a trace', async () => {
    // Both worker slots busy, so the third scan's job waits in the queue while its scan is deleted.
    const busy = [await newScan(), await newScan()];
    for (const scan of busy) await uploadPhoto(stack.orm, scan.run_id, PHOTO);
    await until(busy[0]!, () => analyzer.waiting === 2);
    const calls = analyzer.calls;
    const scan = await newScan();
    await uploadPhoto(stack.orm, scan.run_id, PHOTO);
    assert.equal((await queuedJobs(scan.run_id)).length, 1, 'its job is queued');
    await callTool(stack.baseUrl, 'delete_skin_scan', scan);
    analyzer.release();
    for (const done of busy) await until(done, (s) => s.status === 'complete');
    // The worker takes the job, finds nothing to analyse, and completes it without calling the analyzer.
    for (let waited = 0; (await queuedJobs(scan.run_id)).length > 0 && waited < 15_000; waited += 50)
      await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(await queuedJobs(scan.run_id), []);
    assert.equal(analyzer.calls, calls);
    assert.deepEqual(await scanRows(scan.run_id), []);
  });

  it('a scan deleted while it is analysed: the inference call is aborted, nothing is written, the job is gone', async () => {
    const scan = await newScan();
    await uploadPhoto(stack.orm, scan.run_id, PHOTO);
    await until(scan, (s) => s.progress === 60 && analyzer.waiting === 1);
    const aborted = analyzer.aborted;
    await callTool(stack.baseUrl, 'delete_skin_scan', scan);
    for (let waited = 0; analyzer.aborted === aborted && waited < 10_000; waited += 20)
      await new Promise((r) => setTimeout(r, 20));
    assert.equal(analyzer.aborted, aborted + 1, 'the analysis was aborted');
    assert.equal(analyzer.waiting, 0);
    for (let waited = 0; (await queuedJobs(scan.run_id)).length > 0 && waited < 10_000; waited += 50)
      await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(await queuedJobs(scan.run_id), []);
    assert.deepEqual(await scanRows(scan.run_id), []);
  });

  /** The scan's row and its photo's, if any is left. */
  const scanRows = (runId: string) =>
    stack.orm.em
      .getConnection()
      .execute(
        'select id from scans where id = ? union all select run_id from scan_photos where run_id = ?',
        [runId, runId],
      );

  const queuedJobs = (runId: string) =>
    stack.orm.em
      .getConnection()
      .execute('select id, attempts from graphile_worker.jobs where key = ?', [runId]);
});
