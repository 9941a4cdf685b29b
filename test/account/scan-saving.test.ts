import assert from 'node:assert/strict';
import { ConnectError } from '@connectrpc/connect';
import { SaveState } from '../../gen/skinmatch/v1/account_pb.ts';
import {
  SAVE_NOT_FOUND,
  SAVE_NOT_READY,
  SAVE_NOT_THIS_BROWSER,
  SAVED_ELSEWHERE,
} from '../../services/account/scan-saving.ts';
import { errorReason } from '../../services/shared/errors.ts';
import { accountClient, createAccount } from '../support/bearer.ts';
import { consentedScan } from '../support/consent.ts';
import { callTool } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

/** The Connect code, ErrorInfo reason and message of a refused call. */
async function refusal(call: Promise<unknown>) {
  const err = await call.then(
    () => assert.fail('the call succeeded'),
    (e: unknown) => ConnectError.from(e),
  );
  return { code: err.code, reason: errorReason(err), message: err.rawMessage };
}

describe('AccountService: saving a guest scan to an account (OpenSave, SaveScan)', function () {
  this.timeout(30_000);
  let stack: Stack;
  let accounts: ReturnType<typeof accountClient>;
  let alice: string;
  let bob: string;

  before(async () => {
    stack = await startStack('scan-saving');
    accounts = accountClient(stack.coreUrl);
    alice = await createAccount(stack.coreUrl, 'alice');
    bob = await createAccount(stack.coreUrl, 'bob');
  });
  after(() => stack?.close());

  const ownerOf = async (runId: string) =>
    (await stack.orm.em.getConnection().execute('select account_id from scans where id = ?', [runId]))[0]
      ?.account_id as string | null;

  it('the consenting browser sees the complete scan with its scores; nothing is saved by looking', async () => {
    const scan = await consentedScan(stack);
    const opened = await accounts.openSave({ runId: scan.runId, browserSecret: scan.browserSecret });
    assert.equal(opened.saveState, SaveState.UNSAVED);
    assert.equal(opened.scan?.runId, scan.runId);
    assert.deepEqual(opened.scan?.concerns, ['redness', 'acne', 'dark_spots']);
    assert.equal(opened.scan?.scores.find((s) => s.measure === 'redness')?.score, 30);
    assert.equal(await ownerOf(scan.runId), null);
  });

  it('saves to the account: the scan row then belongs to it, list shows it; saving again changes nothing', async () => {
    const scan = await consentedScan(stack);
    const saved = await accounts.saveScan({ accountId: alice, ...scan });
    assert.equal(saved.newlySaved, true);
    assert.equal(saved.scan?.runId, scan.runId);
    assert.equal(await ownerOf(scan.runId), alice);
    const listed = await accounts.listAccountScans({ accountId: alice });
    assert.ok(listed.scans.some((s) => s.runId === scan.runId));
    const again = await accounts.saveScan({ accountId: alice, ...scan });
    assert.equal(again.newlySaved, false);
    assert.equal(await ownerOf(scan.runId), alice);
    const opened = await accounts.openSave({ ...scan, accountId: alice });
    assert.equal(opened.saveState, SaveState.SAVED_TO_THIS_ACCOUNT);
    // The guest capability still reads it, as before saving.
    const guest = await callTool(stack.baseUrl, 'get_skin_scan', {
      run_id: scan.runId,
      access_token: scan.accessToken,
    });
    assert.equal(guest.structuredContent.status, 'complete');
  });

  it('a scan saved to one account is refused to another, even from the consenting browser', async () => {
    const scan = await consentedScan(stack);
    await accounts.saveScan({ accountId: alice, ...scan });
    assert.equal(
      (await accounts.openSave({ ...scan, accountId: bob })).saveState,
      SaveState.SAVED_TO_ANOTHER_ACCOUNT,
    );
    assert.equal(
      (await accounts.openSave({ ...scan, accountId: '' })).saveState,
      SaveState.SAVED_TO_ANOTHER_ACCOUNT,
    );
    assert.deepEqual(await refusal(accounts.saveScan({ accountId: bob, ...scan })), {
      code: 9,
      reason: 'saved_to_another_account',
      message: SAVED_ELSEWHERE,
    });
    assert.equal(await ownerOf(scan.runId), alice);
  });

  it('concurrent saves of one scan to two accounts: exactly one wins', async () => {
    const scan = await consentedScan(stack);
    const results = await Promise.allSettled([
      accounts.saveScan({ accountId: alice, ...scan }),
      accounts.saveScan({ accountId: bob, ...scan }),
    ]);
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    assert.equal(errorReason(lost.reason), 'saved_to_another_account');
  });

  it('any other browser is not_consenting_browser, whatever the scan state, and learns nothing more', async () => {
    const complete = await consentedScan(stack);
    const pending = await consentedScan(stack, null);
    const expected = { code: 7, reason: 'not_consenting_browser', message: SAVE_NOT_THIS_BROWSER };
    // No cookie, a made-up one, and the real cookie of another scan's browser.
    const cases = [
      { runId: complete.runId, secrets: ['', 'f'.repeat(64), pending.browserSecret] },
      { runId: pending.runId, secrets: ['', 'f'.repeat(64), complete.browserSecret] },
    ];
    for (const { runId, secrets } of cases) {
      for (const browserSecret of secrets) {
        assert.deepEqual(await refusal(accounts.openSave({ runId, browserSecret })), expected);
        assert.deepEqual(
          await refusal(accounts.saveScan({ accountId: alice, runId, browserSecret })),
          expected,
        );
      }
    }
    assert.equal(await ownerOf(complete.runId), null);
  });

  it('a scan nobody consented to is refused to every browser', async () => {
    const started = (await callTool(stack.baseUrl, 'start_skin_scan', { source: 'no consent' }))
      .structuredContent;
    assert.deepEqual(await refusal(accounts.openSave({ runId: started.run_id, browserSecret: '' })), {
      code: 7,
      reason: 'not_consenting_browser',
      message: SAVE_NOT_THIS_BROWSER,
    });
  });

  it('a scan that is not complete: scan_not_ready for the consenting browser', async () => {
    const scan = await consentedScan(stack, null);
    const expected = { code: 9, reason: 'scan_not_ready', message: SAVE_NOT_READY };
    assert.deepEqual(await refusal(accounts.openSave(scan)), expected);
    assert.deepEqual(await refusal(accounts.saveScan({ accountId: alice, ...scan })), expected);
  });

  it('unknown, deleted and expired scans are one and the same not_found', async () => {
    const expected = { code: 5, reason: 'not_found', message: SAVE_NOT_FOUND };
    const unknown = { runId: crypto.randomUUID(), browserSecret: 'a'.repeat(64) };
    assert.deepEqual(await refusal(accounts.openSave(unknown)), expected);
    const deleted = await consentedScan(stack);
    await callTool(stack.baseUrl, 'delete_skin_scan', {
      run_id: deleted.runId,
      access_token: deleted.accessToken,
    });
    assert.deepEqual(await refusal(accounts.openSave(deleted)), expected);
    const expired = await consentedScan(stack);
    stack.clock.offsetMs = 8 * 24 * 3600 * 1000;
    try {
      assert.deepEqual(await refusal(accounts.openSave(expired)), expected);
      assert.deepEqual(await refusal(accounts.saveScan({ accountId: alice, ...expired })), expected);
    } finally {
      stack.clock.offsetMs = 0;
    }
  });

  it('malformed input and unknown accounts', async () => {
    const scan = await consentedScan(stack);
    assert.deepEqual(await refusal(accounts.openSave({ runId: '', browserSecret: '' })), {
      code: 3,
      reason: 'scan_required',
      message: 'run_id is required.',
    });
    assert.deepEqual(await refusal(accounts.openSave({ runId: 'nope', browserSecret: '' })), {
      code: 3,
      reason: 'invalid_input',
      message: 'run_id must be a UUID.',
    });
    assert.deepEqual(await refusal(accounts.saveScan({ accountId: 'nope', ...scan })), {
      code: 3,
      reason: 'invalid_input',
      message: 'account_id must be a UUID.',
    });
    assert.deepEqual(await refusal(accounts.saveScan({ accountId: crypto.randomUUID(), ...scan })), {
      code: 5,
      reason: 'not_found',
      message: 'No such account.',
    });
    assert.equal(await ownerOf(scan.runId), null);
  });
});
