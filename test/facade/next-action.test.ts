import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { accountClient } from '../support/bearer.ts';
import { consentedScan } from '../support/consent.ts';
import { completeScan, RED_ACNE_SCORES, setScanStatus, TEST_CATALOG } from '../support/fixtures.ts';
import { callTool, readTool, twoEndpoints } from '../support/two-endpoints.ts';

/**
 * next_action (and the links beside it) name only what the reader can do with what it holds, on /mcp and
 * /mcp/account: recommend_products only to a holder of a live token while the scan's one match is unused;
 * ask_person_to_retake and share_upload_url only while the upload page answers. Otherwise `none` (nothing
 * left to do with this scan) or `start_new_scan` (it takes no photo any more). Real MCP SDK clients that
 * listed the tools first, so every answer is checked against its tool's outputSchema (the SDK's ajv).
 * Time moves by moving the scan back eight days in the database (created_at and expires_at).
 */
describe('next_action is something the reader can do', () => {
  const ends = twoEndpoints('next-action', { products: TEST_CATALOG });
  before(async () => {
    await ends.guest.listTools();
    await ends.account.listTools();
  });

  const call = callTool;
  const read = readTool;
  /** next_action, retry_after_seconds and the links, as the reader sees them. */
  const step = (scan: Record<string, any>) => ({
    status: scan.status,
    next_action: scan.next_action,
    retry_after_seconds: scan.retry_after_seconds,
    upload_url: scan.upload_url,
    save_url: scan.save_url,
  });
  const listed = async (runId: string) =>
    (await read(ends.account, 'list_my_scans', { page_size: 100 })).scans.find(
      (each: { run_id: string }) => each.run_id === runId,
    );
  const eightDaysAgo = (runId: string) =>
    ends.stack.orm.em.getConnection().execute(
      `update scans set created_at = created_at - interval '8 days', expires_at = expires_at - interval '8 days'
         where id = ?`,
      [runId],
    );
  const page = async (runId: string) => (await fetch(`${ends.stack.baseUrl}/scan/${runId}`)).status;
  const upload = (runId: string) => `${ends.stack.baseUrl}/scan/${runId}`;

  it('every scan-reading tool’s outputSchema allows each next_action, and upload_url to be absent', async () => {
    const all = [
      'share_upload_url',
      'poll',
      'recommend_products',
      'ask_person_to_retake',
      'none',
      'start_new_scan',
    ];
    // The listing's outputSchema is anyOf [the tool's answer, the error body].
    const answer = async (client: Client, name: string) =>
      ((await client.listTools()).tools.find((t) => t.name === name)!.outputSchema as any).anyOf[0];
    const schemas = [
      await answer(ends.guest, 'get_skin_scan'),
      await answer(ends.account, 'get_skin_scan'),
      (await answer(ends.account, 'list_my_scans')).properties.scans.items,
    ];
    for (const schema of schemas) {
      assert.deepEqual(schema.properties.next_action.enum, all);
      assert.deepEqual(schema.required, [
        'run_id',
        'status',
        'next_action',
        'retry_after_seconds',
        'progress',
      ]);
    }
  });

  it('/mcp: recommend_products until the match is used, then none (recommend_products gave nothing)', async () => {
    const scan = await consentedScan(ends.stack);
    const pair = { run_id: scan.runId, access_token: scan.accessToken };
    const save = `${ends.stack.baseUrl}/save/${scan.runId}`;
    assert.deepEqual(step(await read(ends.guest, 'get_skin_scan', pair)), {
      status: 'complete',
      next_action: 'recommend_products',
      retry_after_seconds: 0,
      upload_url: upload(scan.runId),
      save_url: save,
    });
    assert.ok((await read(ends.guest, 'recommend_products', pair)).products.length > 0);

    assert.deepEqual(step(await read(ends.guest, 'get_skin_scan', pair)), {
      status: 'complete',
      next_action: 'none',
      retry_after_seconds: 0,
      upload_url: upload(scan.runId),
      save_url: save,
    });
    const again = await read(ends.guest, 'recommend_products', pair);
    assert.deepEqual([again.products, again.entitlement.upgrade_required], [[], true]);
  });

  it('/mcp/account: a scan saved from a guest session is none by run_id; by its token, as on /mcp', async () => {
    const scan = await consentedScan(ends.stack);
    await accountClient(ends.stack.coreUrl).saveScan({
      runId: scan.runId,
      browserSecret: scan.browserSecret,
      accountId: ends.accountId,
    });
    const pair = { run_id: scan.runId, access_token: scan.accessToken };
    const byRunId = {
      status: 'complete',
      next_action: 'none',
      retry_after_seconds: 0,
      upload_url: upload(scan.runId),
      save_url: undefined,
    };
    assert.deepEqual(step(await read(ends.account, 'get_skin_scan', { run_id: scan.runId })), byRunId);
    assert.deepEqual(step(await listed(scan.runId)), byRunId);
    assert.equal((await read(ends.account, 'get_skin_scan', pair)).next_action, 'recommend_products');

    // Day 8: the token is gone (recommend_products is not_found); the ends.account still reads the scan.
    await eightDaysAgo(scan.runId);
    const expired = { ...byRunId, upload_url: undefined };
    assert.deepEqual(step(await read(ends.account, 'get_skin_scan', { run_id: scan.runId })), expired);
    assert.deepEqual(step(await listed(scan.runId)), expired);
    const rec = await call(ends.account, 'recommend_products', pair);
    assert.deepEqual([rec.isError, rec.body.error?.code], [true, 'not_found']);
    assert.equal(await page(scan.runId), 404);
  });

  it('/mcp/account: a scan started there says recommend_products with its token, none once matched', async () => {
    const started = await read(ends.account, 'start_skin_scan', { source: 'next-action test' });
    await completeScan(ends.stack.orm, started.run_id, RED_ACNE_SCORES);
    const pair = { run_id: started.run_id, access_token: started.access_token };
    assert.equal((await read(ends.account, 'get_skin_scan', { run_id: started.run_id })).next_action, 'none');
    assert.equal((await read(ends.account, 'get_skin_scan', pair)).next_action, 'recommend_products');
    assert.ok((await read(ends.account, 'recommend_products', pair)).products.length > 0);
    assert.deepEqual(step(await read(ends.account, 'get_skin_scan', pair)), {
      status: 'complete',
      next_action: 'none',
      retry_after_seconds: 0,
      upload_url: upload(started.run_id),
      save_url: undefined,
    });
  });

  it('/mcp/account: a failed scan asks for a retake while its page answers, then start_new_scan', async () => {
    const started = await read(ends.account, 'start_skin_scan', { source: 'next-action test' });
    await setScanStatus(ends.stack.orm, started.run_id, 'failed');
    const retake = {
      status: 'failed',
      next_action: 'ask_person_to_retake',
      retry_after_seconds: 5,
      upload_url: upload(started.run_id),
      save_url: undefined,
    };
    assert.deepEqual(step(await read(ends.account, 'get_skin_scan', { run_id: started.run_id })), retake);
    assert.equal(await page(started.run_id), 200);

    await eightDaysAgo(started.run_id);
    const gone = { ...retake, next_action: 'start_new_scan', retry_after_seconds: 0, upload_url: undefined };
    assert.deepEqual(step(await read(ends.account, 'get_skin_scan', { run_id: started.run_id })), gone);
    assert.deepEqual(step(await listed(started.run_id)), gone);
    assert.equal(await page(started.run_id), 404);
  });

  it('/mcp/account: past its page, a scan awaiting its photo is start_new_scan; one analysing still polls', async () => {
    const waiting = await read(ends.account, 'start_skin_scan', { source: 'next-action test' });
    const analysing = await read(ends.account, 'start_skin_scan', { source: 'next-action test' });
    await setScanStatus(ends.stack.orm, analysing.run_id, 'analyzing');
    assert.deepEqual(step(await read(ends.account, 'get_skin_scan', { run_id: waiting.run_id })), {
      status: 'awaiting_upload',
      next_action: 'share_upload_url',
      retry_after_seconds: 5,
      upload_url: upload(waiting.run_id),
      save_url: undefined,
    });

    await eightDaysAgo(waiting.run_id);
    await eightDaysAgo(analysing.run_id);
    assert.deepEqual(step(await read(ends.account, 'get_skin_scan', { run_id: waiting.run_id })), {
      status: 'awaiting_upload',
      next_action: 'start_new_scan',
      retry_after_seconds: 0,
      upload_url: undefined,
      save_url: undefined,
    });
    assert.deepEqual(step(await listed(analysing.run_id)), {
      status: 'analyzing',
      next_action: 'poll',
      retry_after_seconds: 1,
      upload_url: undefined,
      save_url: undefined,
    });
  });
});
