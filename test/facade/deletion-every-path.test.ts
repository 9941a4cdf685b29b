/**
 * A deleted scan's token stops working at once, on every path (scan-paths.ts: MCP on /mcp and /mcp/account,
 * GetScan and WatchScan over @grpc/grpc-js, the upload page, its events and its photo POST, the save page),
 * whichever way the scan goes: delete_skin_scan on /mcp, the upload page's delete, delete_skin_scan by
 * run_id on /mcp/account, and delete_my_service_data for a scan saved to the account. A WatchScan open
 * when the scan goes ends NOT_FOUND. Nothing here failed on the code it was written against: it keeps it so.
 */
import assert from 'node:assert/strict';
import { singleFace } from '../inference/support/photos.ts';
import { pageFetch, postPhoto } from '../intake/scan-page-support.ts';
import { accountClient, createAccount, mintToken } from '../support/bearer.ts';
import { type ConsentedScan, consentedScan } from '../support/consent.ts';
import { RED_ACNE_SCORES, TEST_CATALOG } from '../support/fixtures.ts';
import { type Stack, startStack } from '../support/stack.ts';
import { GONE, type ScanPaths, scanPaths, WORKING } from './scan-paths.ts';

describe('a deleted scan, on every path', function () {
  this.timeout(120_000);
  let stack: Stack;
  let paths: ScanPaths;
  /** A bearer of an account that owns none of these scans (for get_skin_scan with the pair). */
  let bystander: string;

  before(async () => {
    stack = await startStack('deletion-every-path', { products: TEST_CATALOG });
    paths = await scanPaths(stack);
    bystander = await bearerOf(await createAccount(stack.coreUrl, 'bystander'));
  });
  after(async () => {
    await paths?.close();
    await stack?.close();
  });

  const bearerOf = async (accountId: string) => `Bearer ${await mintToken(stack, accountId)}`;
  const pairOf = (scan: ConsentedScan) => ({ run_id: scan.runId, access_token: scan.accessToken });

  /** Deletes the complete scan with `remove`; every path then answers as for no scan. */
  async function goneEverywhere(scan: ConsentedScan, remove: () => Promise<void>) {
    assert.deepEqual(await paths.answers(scan, bystander), WORKING);
    await remove();
    assert.deepEqual(await paths.answers(scan, bystander), GONE);
    const photo = await postPhoto(stack.baseUrl, scan.runId, await singleFace('a'), {
      secret: scan.browserSecret,
    });
    assert.equal(photo.status, 404);
    assert.equal(await paths.tool('delete_skin_scan', pairOf(scan)), 'not_found');
  }

  it('delete_skin_scan on /mcp', async () => {
    const scan = await consentedScan(stack, RED_ACNE_SCORES);
    await goneEverywhere(scan, async () => {
      assert.equal(await paths.tool('delete_skin_scan', pairOf(scan)), 'ok');
    });
  });

  it('a WatchScan open on a scan awaiting its photo ends NOT_FOUND when the scan goes', async () => {
    for (const remove of ['agent', 'page'] as const) {
      const scan = await consentedScan(stack, null);
      const watching = paths.watch(scan);
      try {
        assert.equal(await watching.first, 'ok');
        if (remove === 'agent') assert.equal(await paths.tool('delete_skin_scan', pairOf(scan)), 'ok');
        else {
          const path = `/scan/${scan.runId}/delete`;
          const res = await pageFetch(stack.baseUrl, path, { method: 'POST', secret: scan.browserSecret });
          assert.equal(res.status, 200);
        }
        assert.equal(await watching.end, 'NOT_FOUND', remove);
      } finally {
        watching.cancel();
      }
    }
  });

  it('the upload page’s delete, by the consenting browser', async () => {
    const scan = await consentedScan(stack, RED_ACNE_SCORES);
    await goneEverywhere(scan, async () => {
      const res = await pageFetch(stack.baseUrl, `/scan/${scan.runId}/delete`, {
        method: 'POST',
        secret: scan.browserSecret,
      });
      assert.equal(res.status, 200);
    });
  });

  /** A scan saved to a new account, and a bearer token of that account. */
  async function savedScan(name: string) {
    const account = await createAccount(stack.coreUrl, name);
    const scan = await consentedScan(stack, RED_ACNE_SCORES);
    await accountClient(stack.coreUrl).saveScan({
      runId: scan.runId,
      browserSecret: scan.browserSecret,
      accountId: account,
    });
    return { scan, bearer: await bearerOf(account) };
  }

  it('delete_skin_scan by run_id on /mcp/account, for a scan saved to the account', async () => {
    const { scan, bearer } = await savedScan('deletes-one');
    await goneEverywhere(scan, async () => {
      assert.equal(await paths.accountTool(bearer, 'delete_skin_scan', { run_id: scan.runId }), 'ok');
    });
    assert.equal(await paths.accountTool(bearer, 'get_skin_scan', { run_id: scan.runId }), 'not_found');
  });

  it('delete_my_service_data: the account’s saved scan, and its bearer token', async () => {
    const { scan, bearer } = await savedScan('deletes-all');
    await goneEverywhere(scan, async () => {
      assert.equal(await paths.accountTool(bearer, 'delete_my_service_data', {}), 'ok');
    });
    assert.equal(await paths.accountTool(bearer, 'list_my_scans', {}), 'HTTP 401');
    assert.equal(await paths.accountTool(bearer, 'get_skin_scan', pairOf(scan)), 'HTTP 401');
  });
});
