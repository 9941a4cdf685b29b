import assert from 'node:assert/strict';
import { accountClient } from '../support/bearer.ts';
import { consentedScan } from '../support/consent.ts';
import { completeScan, RED_ACNE_SCORES } from '../support/fixtures.ts';
import { readTool, twoEndpoints } from '../support/two-endpoints.ts';

/**
 * save_url comes with a complete guest scan (spec: "Returned with a completed guest scan; lets the person
 * save the scan to an account"). A scan already in an account — started on /mcp/account, or saved — has
 * none: an agent handing it on would ask the person to save, again, what their account already holds.
 */
describe('save_url is offered only while a complete scan is in no account', () => {
  const ends = twoEndpoints('save-url');

  const read = readTool;

  it('a complete guest scan has it; once saved to an account, neither endpoint offers it', async () => {
    const scan = await consentedScan(ends.stack);
    const pair = { run_id: scan.runId, access_token: scan.accessToken };
    assert.equal(
      (await read(ends.guest, 'get_skin_scan', pair)).save_url,
      `${ends.stack.baseUrl}/save/${scan.runId}`,
    );

    await accountClient(ends.stack.coreUrl).saveScan({
      runId: scan.runId,
      browserSecret: scan.browserSecret,
      accountId: ends.accountId,
    });
    const asGuest = await read(ends.guest, 'get_skin_scan', pair);
    assert.equal(asGuest.status, 'complete');
    assert.equal(asGuest.save_url, undefined);
    const asAccount = await read(ends.account, 'get_skin_scan', { run_id: scan.runId });
    assert.equal(asAccount.status, 'complete');
    assert.equal(asAccount.save_url, undefined);
  });

  it('a complete scan started on /mcp/account has none, read or listed, by run_id or by its token', async () => {
    const started = await read(ends.account, 'start_skin_scan', { source: 'save-url test' });
    await completeScan(ends.stack.orm, started.run_id, RED_ACNE_SCORES);

    const byRunId = await read(ends.account, 'get_skin_scan', { run_id: started.run_id });
    assert.equal(byRunId.status, 'complete');
    assert.equal(byRunId.save_url, undefined);
    const listed = (await read(ends.account, 'list_my_scans', {})).scans.find(
      (each: { run_id: string }) => each.run_id === started.run_id,
    );
    assert.equal(listed.status, 'complete');
    assert.equal(listed.save_url, undefined);
    const byToken = await read(ends.guest, 'get_skin_scan', {
      run_id: started.run_id,
      access_token: started.access_token,
    });
    assert.equal(byToken.status, 'complete');
    assert.equal(byToken.save_url, undefined);
  });
});
