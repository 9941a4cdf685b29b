/**
 * "A guest token stops working seven days after it is issued", to the millisecond and on every path: at
 * expires_at − 1 ms each works, at expires_at each answers as for a scan that does not exist — MCP on /mcp
 * (SDK client) and /mcp/account with the scan's token, ScanService over @grpc/grpc-js (GetScan, WatchScan),
 * the upload page (its page, challenge, consent, photo and events) and the save page (scan-paths.ts).
 * Core's clock is stopped at each instant (the stack's `clock.fixedMs`).
 */
import assert from 'node:assert/strict';
import { CONSENT_VERSION } from '../../services/intake/consent.ts';
import { singleFace } from '../inference/support/photos.ts';
import { pageFetch, postConsent, postPhoto, solvedChallenge } from '../intake/scan-page-support.ts';
import { createAccount, mintToken } from '../support/bearer.ts';
import { consentedScan, consentTo } from '../support/consent.ts';
import { RED_ACNE_SCORES, TEST_CATALOG } from '../support/fixtures.ts';
import { callTool } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';
import { GONE, type ScanPaths, scanPaths, WORKING } from './scan-paths.ts';

const LIFETIME_MS = 7 * 24 * 3600 * 1000;

describe('the seven-day token at its exact boundary, on every path', function () {
  this.timeout(120_000);
  let stack: Stack;
  let paths: ScanPaths;
  let bearer: string;

  before(async () => {
    stack = await startStack('expiry-boundary', { products: TEST_CATALOG });
    paths = await scanPaths(stack);
    bearer = `Bearer ${await mintToken(stack, await createAccount(stack.coreUrl, 'expiry'))}`;
  });
  afterEach(() => {
    stack.clock.fixedMs = undefined;
  });
  after(async () => {
    await paths?.close();
    await stack?.close();
  });

  /** When the scan's token stops working, as stored, and the issue time it is seven days after. */
  async function expiryOf(runId: string): Promise<number> {
    const [row] = (await stack.orm.em
      .getConnection()
      .execute('select expires_at, created_at from scans where id = ?', [runId])) as {
      expires_at: string;
      created_at: string;
    }[];
    assert.ok(row);
    const expires = new Date(row.expires_at).getTime();
    assert.equal(expires - new Date(row.created_at).getTime(), LIFETIME_MS);
    return expires;
  }

  it('a complete scan: reads, matches, its pages and its save page', async () => {
    const scan = await consentedScan(stack, RED_ACNE_SCORES);
    const expires = await expiryOf(scan.runId);
    stack.clock.fixedMs = expires - 1;
    assert.deepEqual(await paths.answers(scan, bearer), WORKING);
    stack.clock.fixedMs = expires;
    assert.deepEqual(await paths.answers(scan, bearer), GONE);
    const pair = { run_id: scan.runId, access_token: scan.accessToken };
    assert.equal(await paths.tool('delete_skin_scan', pair), 'not_found');
    assert.equal(await paths.accountTool(bearer, 'delete_skin_scan', pair), 'not_found');
  });

  it('the upload page: its challenge and consent, and the photo of a consented scan', async () => {
    const started = async () => {
      const result = await callTool(stack.baseUrl, 'start_skin_scan', { source: 'expiry' });
      return result.structuredContent.run_id as string;
    };
    const consenting = await started();
    const uploading = await started();
    const secret = await consentTo(stack.coreUrl, uploading);
    const photo = await singleFace('a');
    const consent = (runId: string, solution: string) =>
      postConsent(stack.baseUrl, runId, { consent_version: CONSENT_VERSION, challenge_solution: solution });

    const expires = await expiryOf(consenting);
    stack.clock.fixedMs = expires - 1;
    const solved = await Promise.all([0, 1].map(() => solvedChallenge(stack.baseUrl, consenting)));
    stack.clock.fixedMs = expires;
    assert.equal((await pageFetch(stack.baseUrl, `/scan/${consenting}/challenge`)).status, 404);
    assert.equal((await consent(consenting, solved[0]!)).status, 404);
    stack.clock.fixedMs = expires - 1;
    assert.equal((await consent(consenting, solved[1]!)).status, 200);

    stack.clock.fixedMs = await expiryOf(uploading);
    assert.equal((await postPhoto(stack.baseUrl, uploading, photo, { secret })).status, 404);
    stack.clock.fixedMs = (await expiryOf(uploading)) - 1;
    assert.equal((await postPhoto(stack.baseUrl, uploading, photo, { secret })).status, 202);
  });
});
