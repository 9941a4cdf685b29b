/**
 * "A guest token stops working seven days after it is issued", to the millisecond and on every path: at
 * expires_at − 1 ms each works, at expires_at each answers as for a scan that does not exist — MCP on /mcp
 * (SDK client) and /mcp/account with the scan's token, ScanService over @grpc/grpc-js (GetScan, WatchScan),
 * the upload page (its page, challenge, consent, photo and events) and the save page. Core's clock is
 * stopped at each instant (the stack's `clock.fixedMs`).
 */
import assert from 'node:assert/strict';
import * as grpc from '@grpc/grpc-js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CONSENT_VERSION } from '../../services/intake/consent.ts';
import { singleFace } from '../inference/support/photos.ts';
import { pageFetch, postConsent, postPhoto, solvedChallenge } from '../intake/scan-page-support.ts';
import { accountRpc, createAccount, mintToken } from '../support/bearer.ts';
import { consentedScan, consentTo } from '../support/consent.ts';
import { RED_ACNE_SCORES, TEST_CATALOG } from '../support/fixtures.ts';
import { loadProto, unary } from '../support/grpc-js.ts';
import { connectSdkClient } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

const LIFETIME_MS = 7 * 24 * 3600 * 1000;

describe('the seven-day token at its exact boundary, on every path', function () {
  this.timeout(120_000);
  let stack: Stack;
  let agent: Client;
  let scans: any;
  let bearer: string;

  before(async () => {
    stack = await startStack('expiry-boundary', { products: TEST_CATALOG });
    agent = await connectSdkClient(stack.baseUrl);
    scans = new (loadProto('skinmatch/v1/scan.proto').skinmatch.v1.ScanService)(
      new URL(stack.coreUrl).host,
      grpc.credentials.createInsecure(),
    );
    bearer = `Bearer ${await mintToken(stack, await createAccount(stack.coreUrl, 'expiry'))}`;
  });
  afterEach(() => {
    stack.clock.fixedMs = undefined;
  });
  after(async () => {
    scans?.close();
    await agent?.close();
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

  const tool = async (name: string, args: Record<string, unknown>) => {
    const result = await agent.callTool({ name, arguments: args });
    return result.isError ? (result.structuredContent as any).error.code : 'ok';
  };
  const accountTool = async (name: string, args: object) => {
    const { body } = await accountRpc(stack.baseUrl, bearer, 'tools/call', { name, arguments: args });
    return body.result.isError ? body.result.structuredContent.error.code : 'ok';
  };
  const grpcCode = (call: Promise<unknown>) =>
    call.then(
      () => 'ok',
      (err: grpc.ServiceError) => grpc.status[err.code],
    );
  /** WatchScan's first message, or the status the stream ended with first. */
  const watchCode = (req: object) =>
    new Promise<string>((done) => {
      const call = scans.watchScan(req);
      call.on('data', () => {
        done('ok');
        call.cancel();
      });
      call.on('error', (err: grpc.ServiceError) => done(grpc.status[err.code]));
    });
  /** The upload page's event stream: its status once headers arrive (200 streams on: it is cut here). */
  const eventsStatus = async (runId: string, secret: string) => {
    const cut = new AbortController();
    const res = await pageFetch(stack.baseUrl, `/scan/${runId}/events`, { secret, signal: cut.signal });
    cut.abort();
    return res.status;
  };

  /** Every path of a complete, consented scan, at one instant: what each answers. */
  async function completePaths(scan: { runId: string; accessToken: string; browserSecret: string }) {
    const pair = { run_id: scan.runId, access_token: scan.accessToken };
    const grpcPair = { runId: scan.runId, accessToken: scan.accessToken };
    const secret = scan.browserSecret;
    return {
      get: await tool('get_skin_scan', pair),
      recommend: await tool('recommend_products', pair),
      accountGet: await accountTool('get_skin_scan', pair),
      grpcGet: await grpcCode(unary(scans, 'getScan', grpcPair)),
      grpcWatch: await watchCode(grpcPair),
      page: (await pageFetch(stack.baseUrl, `/scan/${scan.runId}`, { secret })).status,
      events: await eventsStatus(scan.runId, secret),
      savePage: (await pageFetch(stack.baseUrl, `/save/${scan.runId}`, { secret })).status,
    };
  }

  it('a complete scan: reads, matches, its pages and its save page', async () => {
    const scan = await consentedScan(stack, RED_ACNE_SCORES);
    const expires = await expiryOf(scan.runId);
    stack.clock.fixedMs = expires - 1;
    const working = { get: 'ok', recommend: 'ok', accountGet: 'ok', grpcGet: 'ok', grpcWatch: 'ok' };
    assert.deepEqual(await completePaths(scan), { ...working, page: 200, events: 200, savePage: 200 });
    stack.clock.fixedMs = expires;
    const gone = { get: 'not_found', recommend: 'not_found', accountGet: 'not_found' };
    assert.deepEqual(await completePaths(scan), {
      ...gone,
      grpcGet: 'NOT_FOUND',
      grpcWatch: 'NOT_FOUND',
      page: 404,
      events: 404,
      savePage: 404,
    });
    const pair = { run_id: scan.runId, access_token: scan.accessToken };
    assert.equal(await tool('delete_skin_scan', pair), 'not_found');
    assert.equal(await accountTool('delete_skin_scan', pair), 'not_found');
  });

  it('the upload page: its challenge and consent, and the photo of a consented scan', async () => {
    const started = async () => {
      const result = await agent.callTool({ name: 'start_skin_scan', arguments: { source: 'expiry' } });
      return (result.structuredContent as { run_id: string }).run_id;
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
