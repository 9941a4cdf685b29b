/**
 * A scan deleted (by the agent, delete_skin_scan) in the moment after the save page's check found it and
 * before core read the scan to show or to answer with: the page answers what it answers for a scan already
 * gone, the one not-found page, never an internal error. Made deterministic by running the deletion from
 * inside core's next read of the scan's row, the one after the check (or, when saving, after its commit).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ConnectError } from '@connectrpc/connect';
import { SAVE_NOT_FOUND } from '../../services/account/scan-saving.ts';
import { errorReason } from '../../services/shared/errors.ts';
import { accountClient, createAccount } from '../support/bearer.ts';
import { type ConsentedScan, consentedScan } from '../support/consent.ts';
import { callTool } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

describe('the save page when the scan is deleted right after its check', function () {
  this.timeout(60_000);
  let stack: Stack;
  let restore: () => void;

  before(async () => {
    stack = await startStack('save-deleted-midcall');
  });
  afterEach(() => restore?.());
  after(() => stack?.close());

  /** The next time core reads `scan`'s row as an entity, the agent deletes the scan first. */
  function deleteBeforeNextRead(scan: ConsentedScan): void {
    const connection = stack.orm.em.getConnection() as unknown as {
      executeQuery: (sql: string, ...rest: unknown[]) => Promise<unknown>;
    };
    const original = connection.executeQuery;
    restore = () => {
      connection.executeQuery = original;
    };
    connection.executeQuery = async function (this: unknown, sql, ...rest) {
      if (/^select "s0"\.\* from "scans" as "s0"/.test(sql)) {
        restore();
        const deleted = await callTool(stack.baseUrl, 'delete_skin_scan', {
          run_id: scan.runId,
          access_token: scan.accessToken,
        });
        assert.equal(deleted.isError, undefined);
      }
      return original.call(this, sql, ...rest);
    };
  }

  it('GET /save/:id from the consenting browser: the not-found page', async () => {
    const scan = await consentedScan(stack);
    const page = (id: string) =>
      fetch(`${stack.baseUrl}/save/${id}`, {
        headers: { cookie: `__Host-skinmatch-browser=${scan.browserSecret}` },
      });
    const gone = await page(randomUUID());
    deleteBeforeNextRead(scan);
    const res = await page(scan.runId);
    assert.equal(res.status, 404);
    const words = async (r: Response) => (await r.text()).replace(/nonce="[^"]+"/, 'nonce="N"');
    assert.equal(await words(res), await words(gone));
  });

  it('OpenSave and SaveScan: not_found, as for a scan already gone', async () => {
    const accounts = accountClient(stack.coreUrl);
    const accountId = await createAccount(stack.coreUrl, 'saving-while-deleted');
    for (const call of ['openSave', 'saveScan'] as const) {
      const scan = await consentedScan(stack);
      deleteBeforeNextRead(scan);
      const err = await accounts[call]({
        runId: scan.runId,
        browserSecret: scan.browserSecret,
        accountId,
      }).then(
        () => assert.fail(`${call} succeeded`),
        (e: unknown) => ConnectError.from(e),
      );
      assert.deepEqual([errorReason(err), err.rawMessage], ['not_found', SAVE_NOT_FOUND], call);
    }
  });
});
