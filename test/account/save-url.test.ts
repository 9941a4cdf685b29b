import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { accountClient, createAccount, mintToken } from '../support/bearer.ts';
import { consentedScan } from '../support/consent.ts';
import { completeScan, RED_ACNE_SCORES } from '../support/fixtures.ts';
import { connectSdkClient } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

/**
 * save_url comes with a complete guest scan (spec: "Returned with a completed guest scan; lets the person
 * save the scan to an account"). A scan already in an account — started on /mcp/account, or saved — has
 * none: an agent handing it on would ask the person to save, again, what their account already holds.
 */
describe('save_url is offered only while a complete scan is in no account', () => {
  let stack: Stack;
  let guest: Client;
  let account: Client;
  let accountId: string;

  before(async () => {
    stack = await startStack('save-url');
    accountId = await createAccount(stack.coreUrl, 'keeper');
    guest = await connectSdkClient(stack.baseUrl);
    account = await connectSdkClient(stack.baseUrl, '/mcp/account', {
      authorization: `Bearer ${await mintToken(stack, accountId)}`,
    });
  });
  after(async () => {
    await guest?.close();
    await account?.close();
    await stack?.close();
  });

  const read = async (client: Client, name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    assert.equal(result.isError, undefined, JSON.stringify(result.structuredContent));
    return result.structuredContent as Record<string, any>;
  };

  it('a complete guest scan has it; once saved to an account, neither endpoint offers it', async () => {
    const scan = await consentedScan(stack);
    const pair = { run_id: scan.runId, access_token: scan.accessToken };
    assert.equal((await read(guest, 'get_skin_scan', pair)).save_url, `${stack.baseUrl}/save/${scan.runId}`);

    await accountClient(stack.coreUrl).saveScan({
      runId: scan.runId,
      browserSecret: scan.browserSecret,
      accountId,
    });
    const asGuest = await read(guest, 'get_skin_scan', pair);
    assert.equal(asGuest.status, 'complete');
    assert.equal(asGuest.save_url, undefined);
    const asAccount = await read(account, 'get_skin_scan', { run_id: scan.runId });
    assert.equal(asAccount.status, 'complete');
    assert.equal(asAccount.save_url, undefined);
  });

  it('a complete scan started on /mcp/account has none, read or listed, by run_id or by its token', async () => {
    const started = await read(account, 'start_skin_scan', { source: 'save-url test' });
    await completeScan(stack.orm, started.run_id, RED_ACNE_SCORES);

    const byRunId = await read(account, 'get_skin_scan', { run_id: started.run_id });
    assert.equal(byRunId.status, 'complete');
    assert.equal(byRunId.save_url, undefined);
    const listed = (await read(account, 'list_my_scans', {})).scans.find(
      (each: { run_id: string }) => each.run_id === started.run_id,
    );
    assert.equal(listed.status, 'complete');
    assert.equal(listed.save_url, undefined);
    const byToken = await read(guest, 'get_skin_scan', {
      run_id: started.run_id,
      access_token: started.access_token,
    });
    assert.equal(byToken.status, 'complete');
    assert.equal(byToken.save_url, undefined);
  });
});
