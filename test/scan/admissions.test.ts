/**
 * Automatic admissions: a backlog of analyses (made here by an inference that does not answer until the
 * test lets it) pauses new scans past its upper bound and admits them again only under the lower one;
 * reads, deletion and the catalog keep working meanwhile, and /health says why scans are refused.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { plainSql } from '../../services/core/db/plain-sql.ts';
import { analysisBacklog, backlogPauses } from '../../services/scan/admissions-governor.ts';
import type { AnalysisEvent, Analyzer } from '../../services/scan/analyzer.ts';
import { loadConfig } from '../../services/shared/config.ts';
import { accountRpc, createAccount, mintToken } from '../support/bearer.ts';
import { TEST_CATALOG, uploadPhoto } from '../support/fixtures.ts';
import { callTool, errorCode } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

const run = promisify(execFile);
const PHOTO = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);

/** An inference that holds every analysis until `release()`: a paused inference process, in effect. */
class HeldAnalyzer implements Analyzer {
  #releases: (() => void)[] = [];

  get held(): number {
    return this.#releases.length;
  }

  release(): void {
    for (const release of this.#releases.splice(0)) release();
  }

  async *analyze(): AsyncIterable<AnalysisEvent> {
    yield { kind: 'progress', stage: 'detecting_face', percent: 20 };
    await new Promise<void>((resolve) => this.#releases.push(resolve));
    yield { kind: 'result', scores: { redness: 80 }, concerns: [] };
  }
}

async function until<T>(what: string, read: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('automatic admissions on the analysis backlog', function () {
  // The operator switch's case runs the admin script twice, a process each: a loaded machine (CI, load 7-10)
  // starts each in seconds, which with the analyses can pass mocha's 30 s default.
  this.timeout(120_000);
  let stack: Stack;
  const analyzer = new HeldAnalyzer();
  const health = async () => (await (await fetch(`${stack.baseUrl}/health`)).json()) as any;
  const queued = async () => (await analysisBacklog(await plainSql(stack.orm))).queued;
  const startScan = async () => {
    const result = await callTool(stack.baseUrl, 'start_skin_scan', { source: 'backlog' });
    const { run_id, access_token } = result.structuredContent;
    return { run_id, access_token };
  };

  before(async () => {
    stack = await startStack('admissions', {
      analyzer,
      products: TEST_CATALOG,
      // Pause past 3 jobs, resume at 1 or fewer; age bounds out of the way (tested below on their own).
      admissions: {
        bounds: { pauseQueued: 3, resumeQueued: 1, pauseAgeSeconds: 3600, resumeAgeSeconds: 3599 },
        intervalMs: 100,
      },
    });
  });
  after(async () => {
    analyzer.release();
    await stack?.close();
  });

  it('pauses past the upper bound; reads, deletes and the catalog keep working; resumes only under the lower', async () => {
    const scans = [];
    for (let i = 0; i < 6; i++) scans.push(await startScan());
    for (const scan of scans.slice(0, 5)) await uploadPhoto(stack.orm, scan.run_id, PHOTO);
    // Five jobs: two held by the worker (concurrency 2), three waiting.
    const paused = await until('health', health, (h) => h.admissions_enabled === false);
    assert.deepEqual(paused, {
      ok: true,
      admissions_enabled: false,
      admissions_paused_by: ['backlog'],
      catalog_tools_enabled: true,
      photo_intake: 'direct_or_link',
    });
    const refused = await callTool(stack.baseUrl, 'start_skin_scan', { source: 'backlog' });
    assert.equal(errorCode(refused), 'admissions_paused');
    assert.equal(refused.structuredContent.error.retry_after_seconds, undefined);
    assert.equal(errorCode(await callTool(stack.baseUrl, 'get_skin_scan', scans[0]!)), undefined);
    assert.equal(errorCode(await callTool(stack.baseUrl, 'delete_skin_scan', scans[5]!)), undefined);
    const bearer = `Bearer ${await mintToken(stack, await createAccount(stack.coreUrl, 'backlog'))}`;
    const search = await accountRpc(stack.baseUrl, bearer, 'tools/call', {
      name: 'search_products',
      arguments: { query: 'serum' },
    });
    assert.equal(search.body.result.isError, undefined, JSON.stringify(search.body));

    // Two analyses finish: 3 left, under the upper bound but not the lower one — still paused.
    await until(
      'held analyses',
      async () => analyzer.held,
      (n) => n === 2,
    );
    analyzer.release();
    await until('queue', queued, (n) => n === 3);
    await new Promise((r) => setTimeout(r, 500)); // five looks at the queue
    assert.equal((await health()).admissions_enabled, false);

    // Two more: 1 left — admitted again.
    await until(
      'held analyses',
      async () => analyzer.held,
      (n) => n === 2,
    );
    analyzer.release();
    const resumed = await until('health', health, (h) => h.admissions_enabled === true);
    assert.equal(resumed.admissions_paused_by, undefined);
    assert.equal(errorCode(await callTool(stack.baseUrl, 'start_skin_scan', { source: 'again' })), undefined);
    await until(
      'held analyses',
      async () => analyzer.held,
      (n) => n === 1,
    );
    analyzer.release();
    await until('queue', queued, (n) => n === 0);
  });

  it('the operator switch and the backlog are two reasons, each shown; `on` does not lift the backlog', async () => {
    const admin = (state: string) =>
      run(process.execPath, ['scripts/admin.ts', 'admissions', state], {
        env: { ...process.env, DATABASE_URL: stack.databaseUrl },
      });
    const scans = [];
    for (let i = 0; i < 4; i++) scans.push(await startScan());
    assert.equal((await admin('off')).stdout, 'admissions off\n');
    for (const scan of scans) await uploadPhoto(stack.orm, scan.run_id, PHOTO);
    const both = await until('health', health, (h) => h.admissions_paused_by?.length === 2);
    assert.deepEqual(both.admissions_paused_by, ['operator', 'backlog']);
    assert.equal(
      (await admin('on')).stdout,
      'admissions on\nnew scans are paused meanwhile: the analysis backlog is over its bound (automatic)\n',
    );
    assert.equal(
      errorCode(await callTool(stack.baseUrl, 'start_skin_scan', { source: 'x' })),
      'admissions_paused',
    );
    for (let i = 0; i < 2; i++) {
      await until(
        'held analyses',
        async () => analyzer.held,
        (n) => n > 0,
      );
      analyzer.release();
    }
    await until('health', health, (h) => h.admissions_enabled === true);
  });
});

describe('automatic admissions on the age of the oldest analysis', () => {
  let stack: Stack;
  const analyzer = new HeldAnalyzer();
  const health = async () => (await (await fetch(`${stack.baseUrl}/health`)).json()) as any;

  before(async () => {
    stack = await startStack('admissions-age', {
      analyzer,
      admissions: {
        // 3 s: the case reads /health right after the upload and finds it open; at 1 s a loaded machine could
        // reach the bound first.
        bounds: { pauseQueued: 1000, resumeQueued: 999, pauseAgeSeconds: 3, resumeAgeSeconds: 0.5 },
        intervalMs: 100,
      },
    });
  });
  after(async () => {
    analyzer.release();
    await stack?.close();
  });

  it('one analysis held past the age bound pauses new scans; its end admits them again', async () => {
    const started = (await callTool(stack.baseUrl, 'start_skin_scan', { source: 'age' })).structuredContent;
    await uploadPhoto(stack.orm, started.run_id, PHOTO);
    assert.equal((await health()).admissions_enabled, true);
    const paused = await until('health', health, (h) => h.admissions_enabled === false);
    assert.deepEqual(paused.admissions_paused_by, ['backlog']);
    analyzer.release();
    await until('health', health, (h) => h.admissions_enabled === true);
  });
});

describe('the backlog bounds', () => {
  const bounds = { pauseQueued: 10, resumeQueued: 2, pauseAgeSeconds: 60, resumeAgeSeconds: 10 };

  it('pause past either upper bound, resume only under both lower ones', () => {
    const at = (queued: number, oldestAgeSeconds: number) => ({ queued, oldestAgeSeconds });
    assert.equal(backlogPauses(false, at(10, 60), bounds), false);
    assert.equal(backlogPauses(false, at(11, 0), bounds), true);
    assert.equal(backlogPauses(false, at(0, 61), bounds), true);
    assert.equal(backlogPauses(true, at(5, 0), bounds), true);
    assert.equal(backlogPauses(true, at(2, 30), bounds), true);
    assert.equal(backlogPauses(true, at(2, 10), bounds), false);
  });

  it('come from the environment, a lower bound below its upper one', () => {
    const env = { TOKEN_PEPPER: 'a'.repeat(64) };
    assert.deepEqual(loadConfig(env).admissionBounds, {
      pauseQueued: 500,
      resumeQueued: 100,
      pauseAgeSeconds: 120,
      resumeAgeSeconds: 30,
    });
    assert.throws(
      () => loadConfig({ ...env, ADMISSIONS_PAUSE_QUEUED: '50', ADMISSIONS_RESUME_QUEUED: '50' }),
      /ADMISSIONS_RESUME_QUEUED: got 50, expected less than ADMISSIONS_PAUSE_QUEUED \(50\)/,
    );
    assert.throws(
      () => loadConfig({ ...env, ADMISSIONS_RESUME_AGE_SECONDS: '200' }),
      /ADMISSIONS_RESUME_AGE_SECONDS: got 200, expected less than ADMISSIONS_PAUSE_AGE_SECONDS \(120\)/,
    );
  });
});
