import assert from 'node:assert/strict';
import pg from 'pg';
import { createAccount, mintToken } from '../support/bearer.ts';
import { untilWaitingOnLock } from '../support/locks.ts';
import { connectSdkClient } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

/**
 * start_skin_scan on /mcp/account while the account's data is being deleted (delete_my_service_data from
 * another conversation of the same person): the account is gone, so the call is the `not_found` core
 * answers for a deleted account, not `unavailable`, which tells the agent the service failed and to call
 * again. No scan is left behind.
 */
describe('start_skin_scan on /mcp/account while the account is deleted', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack('account-deleted-midcall');
  });
  after(async () => stack?.close());

  it('is not_found, and stores no scan', async () => {
    const accountId = await createAccount(stack.coreUrl, 'leaving-mid-call');
    const token = await mintToken(stack, accountId);
    const client = await connectSdkClient(stack.baseUrl, '/mcp/account', {
      authorization: `Bearer ${token}`,
    });
    // The deletion holds the account row until it commits: the call finds the account (the deletion is
    // not yet visible), then waits at the new scan's key to it until the deletion commits.
    const deleter = new pg.Client({ connectionString: stack.databaseUrl });
    await deleter.connect();
    try {
      await deleter.query('begin');
      await deleter.query('delete from accounts where id = $1', [accountId]);
      const answer = client.callTool({ name: 'start_skin_scan', arguments: { source: 'mid-deletion' } });
      await untilWaitingOnLock(stack.orm, 'scans');
      await deleter.query('commit');

      const result = await answer;
      assert.equal(result.isError, true);
      assert.deepEqual((result.structuredContent as { error: unknown }).error, {
        code: 'not_found',
        message: 'No such account.',
      });
      const scans = await deleter.query(`select 1 from scans where source = 'mid-deletion'`);
      assert.equal(scans.rowCount, 0);
    } finally {
      await deleter.end();
      await client.close();
    }
  });
});
