import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import pg from 'pg';
import { completeScan, RED_ACNE_SCORES, TEST_CATALOG } from '../support/fixtures.ts';
import { untilWaitingOnLock } from '../support/locks.ts';
import { connectSdkClient } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

/**
 * A scan deleted while recommend_products is answering it — the agent's own delete_skin_scan racing its
 * recommend_products, the person deleting on the upload page, the account deleted, the purge — is
 * `not_found`, as it is a moment later: not `unavailable`, which tells the agent the service failed and to
 * call again.
 */
describe('recommend_products on a scan deleted while it answers', () => {
  let stack: Stack;
  let client: Client;
  before(async () => {
    stack = await startStack('recommend-deleted', { products: TEST_CATALOG });
    client = await connectSdkClient(stack.baseUrl);
  });
  after(async () => {
    await client?.close();
    await stack?.close();
  });

  it('is not_found, and leaves no allowance row behind', async () => {
    const started = await client.callTool({ name: 'start_skin_scan', arguments: { source: 'race' } });
    const { run_id, access_token } = started.structuredContent as { run_id: string; access_token: string };
    await completeScan(stack.orm, run_id, RED_ACNE_SCORES);

    // The deletion holds the scan row until it commits: the call reads the scan (the deletion is not yet
    // visible), ranks products, then waits at the allowance row's foreign key until the deletion commits.
    const deleter = new pg.Client({ connectionString: stack.databaseUrl });
    await deleter.connect();
    try {
      await deleter.query('begin');
      await deleter.query('delete from scans where id = $1', [run_id]);
      const answer = client.callTool({ name: 'recommend_products', arguments: { run_id, access_token } });
      await untilWaitingOnLock(stack.orm, 'scan_matches');
      await deleter.query('commit');

      const result = await answer;
      assert.equal(result.isError, true);
      assert.deepEqual((result.structuredContent as { error: unknown }).error, {
        code: 'not_found',
        message:
          'No scan matches this run_id and access_token: it was deleted, has expired (a guest scan’s access_token stops working seven days after it was issued) or never existed. Start a new scan only if the person asks for one.',
      });
      const rows = await deleter.query('select 1 from scan_matches where run_id = $1', [run_id]);
      assert.equal(rows.rowCount, 0);
    } finally {
      await deleter.end();
    }
  });
});
