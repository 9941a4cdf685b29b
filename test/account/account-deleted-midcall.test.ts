import assert from 'node:assert/strict';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import pg from 'pg';
import { OAuthStateService } from '../../gen/skinmatch/v1/oauth_state_pb.ts';
import { errorReason } from '../../services/shared/errors.ts';
import { accountClient, createAccount, mintToken } from '../support/bearer.ts';
import { consentedScan } from '../support/consent.ts';
import { untilWaitingOnLock } from '../support/locks.ts';
import { connectSdkClient } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

/**
 * Writes keyed by an account while the account's data is being deleted (delete_my_service_data from another
 * conversation or page of the same person): the account is gone, so each is the `not_found` core answers
 * for a deleted account a moment later, not `unavailable`, which tells the caller the service failed and to
 * try again. Nothing is left behind. The deletion holds the account row until it commits: each call finds
 * the account (the deletion is not yet visible), then waits at its row's key to it until the deletion
 * commits.
 */
describe('writes for an account while the account is deleted', () => {
  let stack: Stack;
  let deleter: pg.Client;
  before(async () => {
    stack = await startStack('account-deleted-midcall');
  });
  beforeEach(async () => {
    deleter = new pg.Client({ connectionString: stack.databaseUrl });
    await deleter.connect();
  });
  afterEach(async () => deleter?.end());
  after(async () => stack?.close());

  /** Runs `call` while the account's deletion is held open on `table`'s key to it, then commits it. */
  async function duringDeletion<T>(accountId: string, table: string, call: () => Promise<T>) {
    await deleter.query('begin');
    await deleter.query('delete from accounts where id = $1', [accountId]);
    const answer: Promise<{ value?: T; err?: unknown }> = call().then(
      (value) => ({ value }),
      (err: unknown) => ({ err }),
    );
    await untilWaitingOnLock(stack.orm, table);
    await deleter.query('commit');
    return answer;
  }

  /** A call refused with core's not_found for a deleted account. */
  function assertAccountGone(answer: { err?: unknown }) {
    assert.ok(answer.err, 'the call succeeded');
    const err = ConnectError.from(answer.err);
    assert.deepEqual(
      [err.code, errorReason(err), err.rawMessage],
      [Code.NotFound, 'not_found', 'No such account.'],
    );
  }

  it('start_skin_scan on /mcp/account is not_found, and stores no scan', async () => {
    const accountId = await createAccount(stack.coreUrl, 'leaving-mid-call');
    const token = await mintToken(stack, accountId);
    const client = await connectSdkClient(stack.baseUrl, '/mcp/account', {
      authorization: `Bearer ${token}`,
    });
    try {
      const { value: result } = await duringDeletion(accountId, 'scans', () =>
        client.callTool({ name: 'start_skin_scan', arguments: { source: 'mid-deletion' } }),
      );
      assert.equal(result?.isError, true);
      assert.deepEqual((result!.structuredContent as { error: unknown }).error, {
        code: 'not_found',
        message: 'No such account.',
      });
      const scans = await deleter.query(`select 1 from scans where source = 'mid-deletion'`);
      assert.equal(scans.rowCount, 0);
    } finally {
      await client.close();
    }
  });

  it('SaveScan is not_found (the save page then signs the person in again), and the scan stays unsaved', async () => {
    const accountId = await createAccount(stack.coreUrl, 'leaving-mid-save');
    const scan = await consentedScan(stack);
    const answer = await duringDeletion(accountId, 'scans', () =>
      accountClient(stack.coreUrl).saveScan({
        accountId,
        runId: scan.runId,
        browserSecret: scan.browserSecret,
      }),
    );
    assertAccountGone(answer);
    const owner = await deleter.query('select account_id from scans where id = $1', [scan.runId]);
    assert.deepEqual(owner.rows, [{ account_id: null }]);
  });

  it('storing a grant of the account (UpsertState) is not_found, and keeps no record', async () => {
    const accountId = await createAccount(stack.coreUrl, 'leaving-mid-grant');
    const state = createClient(
      OAuthStateService,
      createConnectTransport({ baseUrl: stack.coreUrl, httpVersion: '2' }),
    );
    const id = crypto.randomUUID();
    const answer = await duringDeletion(accountId, 'oauth_state', () =>
      state.upsertState({
        model: 'Grant',
        id,
        payload: { kind: 'Grant', jti: id, accountId },
        expiresIn: 60n,
      }),
    );
    assertAccountGone(answer);
    const records = await deleter.query('select 1 from oauth_state where id = $1', [id]);
    assert.equal(records.rowCount, 0);
  });
});
