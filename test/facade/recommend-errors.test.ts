/**
 * recommend_products' errors as the spec's Errors section gives them: the tool lists its common errors, and
 * scan_not_ready tells the agent what get_skin_scan's next_action tells it for the same scan.
 */
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ANALYSIS_UNAVAILABLE } from '../../services/shared/failure-messages.ts';
import { completeScan, RED_ACNE_SCORES, setScanStatus, TEST_CATALOG } from '../support/fixtures.ts';
import { callTool, connectSdkClient, errorCode } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

/** The spec's list, in its order ("recommend_products lists as its common errors: …"). */
const COMMON_ERRORS = [
  'scan_required',
  'scan_not_ready',
  'scan_not_uploaded',
  'not_found',
  'catalog_unavailable',
  'rate_limited',
];

describe('recommend_products errors', () => {
  let stack: Stack;
  let client: Client;

  before(async () => {
    stack = await startStack('recommend-errors', { products: TEST_CATALOG });
    client = await connectSdkClient(stack.baseUrl);
  });
  after(async () => {
    await client?.close();
    await stack?.close();
  });

  it('its listing names the spec’s common errors, in the spec’s order', async () => {
    const tool = (await client.listTools()).tools.find((t) => t.name === 'recommend_products')!;
    const listed = tool.description!.split('Common errors: ')[1] ?? '';
    const codes = [...listed.matchAll(/\b[a-z]+(?:_[a-z]+)+\b(?= \()/g)].map((m) => m[0]);
    assert.deepEqual(codes, COMMON_ERRORS);
  });

  it('scan_not_ready says what next_action says: poll, ask for a new photo, or send the photo again', async () => {
    const started = (await callTool(stack.baseUrl, 'start_skin_scan', { source: 'errors' }))
      .structuredContent;
    const scan = { run_id: started.run_id, access_token: started.access_token };
    const fail = (reason: string) =>
      stack.orm.em
        .getConnection()
        .execute(
          `update scans set status = 'failed', failure_reason = ?, completed_at = now() where id = ?`,
          [reason, scan.run_id],
        );
    const answer = async () => {
      const read = (await callTool(stack.baseUrl, 'get_skin_scan', scan)).structuredContent;
      const result = await callTool(stack.baseUrl, 'recommend_products', scan);
      return [read.next_action, errorCode(result), result.structuredContent.error.message];
    };

    await setScanStatus(stack.orm, scan.run_id, 'queued');
    assert.deepEqual(await answer(), [
      'poll',
      'scan_not_ready',
      'The scan is not complete: poll get_skin_scan.',
    ]);
    await fail('too_dark');
    assert.deepEqual(await answer(), [
      'ask_person_to_retake',
      'scan_not_ready',
      'The scan is not complete: the photo could not be analysed; ask for a new one.',
    ]);
    await fail(ANALYSIS_UNAVAILABLE);
    assert.deepEqual(await answer(), [
      'share_upload_url',
      'scan_not_ready',
      'The scan is not complete: the service could not analyse the photo, and nothing was wrong with it; ' +
        'give the person upload_url again to send it in a few minutes.',
    ]);
  });
});

describe('recommend_products past the caller’s budget', () => {
  let stack: Stack;

  before(async () => {
    stack = await startStack('recommend-rate-limited', {
      products: TEST_CATALOG,
      limits: { callsPerMinute: 2, scansPerHour: 30 },
    });
  });
  after(() => stack?.close());

  it('→ rate_limited with retry_after_seconds, before any work: the scan’s match is not used', async () => {
    const started = (await callTool(stack.baseUrl, 'start_skin_scan', { source: 'budget' }))
      .structuredContent;
    const scan = { run_id: started.run_id, access_token: started.access_token };
    await completeScan(stack.orm, scan.run_id, RED_ACNE_SCORES);
    assert.equal(errorCode(await callTool(stack.baseUrl, 'get_skin_scan', scan)), undefined);
    const refused = await callTool(stack.baseUrl, 'recommend_products', scan);
    assert.equal(errorCode(refused), 'rate_limited');
    const retry = refused.structuredContent.error.retry_after_seconds;
    assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= 60, String(retry));
    const used = await stack.orm.em
      .getConnection()
      .execute('select count(*)::int as n from scan_matches where run_id = ?', [scan.run_id]);
    assert.deepEqual(used, [{ n: 0 }]);
  });
});
