import assert from 'node:assert/strict';
import * as grpc from '@grpc/grpc-js';
import { loadProto, unary } from '../support/grpc-js.ts';
import { type Stack, startStack } from '../support/stack.ts';

/** Whether a gRPC error carries ErrorInfo (domain skinmatch) with this reason. */
function carries(err: any, reason: string): boolean {
  const bin = err.metadata?.get('grpc-status-details-bin')?.[0] as Buffer | undefined;
  return Boolean(bin?.includes(Buffer.from(reason)) && bin.includes(Buffer.from('skinmatch')));
}

describe('AccountService over gRPC (@grpc/grpc-js client)', () => {
  let stack: Stack;
  let accounts: any;

  before(async () => {
    stack = await startStack('account-service');
    const { skinmatch } = loadProto('skinmatch/v1/account.proto');
    accounts = new skinmatch.v1.AccountService(
      new URL(stack.coreUrl).host,
      grpc.credentials.createInsecure(),
    );
  });
  after(async () => {
    accounts?.close();
    await stack?.close();
  });

  it('SignIn creates the account once per identity; GetAccount reads it with its identities', async () => {
    const first = await unary<any>(accounts, 'SignIn', { provider: 'https://idp.one', subject: 'p-1' });
    assert.equal(first.created, true);
    const again = await unary<any>(accounts, 'SignIn', { provider: 'https://idp.one', subject: 'p-1' });
    assert.equal(again.created, false);
    assert.equal(again.account.accountId, first.account.accountId);
    const other = await unary<any>(accounts, 'SignIn', { provider: 'https://idp.two', subject: 'p-1' });
    assert.notEqual(other.account.accountId, first.account.accountId);
    const read = await unary<any>(accounts, 'GetAccount', { accountId: first.account.accountId });
    assert.deepEqual(read.account.identities, [{ provider: 'https://idp.one', subject: 'p-1' }]);
  });

  it('concurrent first sign-ins of one identity end in one account', async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        unary<any>(accounts, 'SignIn', { provider: 'https://idp.one', subject: 'race' }),
      ),
    );
    assert.equal(new Set(results.map((r) => r.account.accountId)).size, 1);
    assert.equal(results.filter((r) => r.created).length, 1);
    const n = await stack.orm.em
      .getConnection()
      .execute(`select count(*) as n from account_identities where subject = 'race'`);
    assert.equal(Number(n[0]?.n), 1);
  });

  it('errors: unknown account NOT_FOUND; malformed ids and empty identities INVALID_ARGUMENT', async () => {
    const cases: [string, object, grpc.status, string][] = [
      [
        'GetAccount',
        { accountId: '00000000-0000-4000-8000-000000000000' },
        grpc.status.NOT_FOUND,
        'not_found',
      ],
      ['GetAccount', { accountId: 'x' }, grpc.status.INVALID_ARGUMENT, 'invalid_input'],
      ['SignIn', { provider: '', subject: 's' }, grpc.status.INVALID_ARGUMENT, 'invalid_input'],
      [
        'StartAccountScan',
        { accountId: '00000000-0000-4000-8000-000000000000', source: 's' },
        grpc.status.NOT_FOUND,
        'not_found',
      ],
      ['ListAccountScans', { accountId: 'x' }, grpc.status.INVALID_ARGUMENT, 'invalid_input'],
      ['DeleteAccountData', { accountId: 'x' }, grpc.status.INVALID_ARGUMENT, 'invalid_input'],
    ];
    for (const [method, req, code, why] of cases) {
      await assert.rejects(unary(accounts, method, req), (err: any) => {
        assert.equal(err.code, code, method);
        assert.ok(carries(err, why), `${method}: ${why}`);
        return true;
      });
    }
  });

  it('GetAccountScan and DeleteAccountScan: scan_required, invalid_input, not_found for a scan of another account', async () => {
    const a = (await unary<any>(accounts, 'SignIn', { provider: 'https://idp.one', subject: 'owner' }))
      .account.accountId;
    const b = (await unary<any>(accounts, 'SignIn', { provider: 'https://idp.one', subject: 'stranger' }))
      .account.accountId;
    const started = await unary<any>(accounts, 'StartAccountScan', { accountId: a, source: 'grpc' });
    assert.match(started.accessToken, /^[a-f0-9]{64}$/);
    const cases: [object, grpc.status][] = [
      [{ accountId: a, runId: '' }, grpc.status.INVALID_ARGUMENT],
      [{ accountId: a, runId: 'nope' }, grpc.status.INVALID_ARGUMENT],
      [{ accountId: b, runId: started.runId }, grpc.status.NOT_FOUND],
    ];
    for (const [req, code] of cases) {
      await assert.rejects(unary(accounts, 'GetAccountScan', req), (err: any) => err.code === code);
      await assert.rejects(unary(accounts, 'DeleteAccountScan', req), (err: any) => err.code === code);
    }
    const read = await unary<any>(accounts, 'GetAccountScan', { accountId: a, runId: started.runId });
    assert.equal(read.scan.runId, started.runId);
  });

  it('ForgetUnusedAccount deletes an account that holds nothing, keeps one with a scan; a malformed id is invalid_input', async () => {
    const signIn = async (subject: string) =>
      (await unary<any>(accounts, 'SignIn', { provider: 'https://idp.one', subject })).account.accountId;
    const empty = await signIn('declined');
    const holder = await signIn('holder');
    await unary<any>(accounts, 'StartAccountScan', { accountId: holder, source: 'grpc' });
    assert.deepEqual(await unary<any>(accounts, 'ForgetUnusedAccount', { accountId: empty }), {
      deleted: true,
    });
    assert.deepEqual(await unary<any>(accounts, 'ForgetUnusedAccount', { accountId: empty }), {
      deleted: false,
    });
    assert.deepEqual(await unary<any>(accounts, 'ForgetUnusedAccount', { accountId: holder }), {
      deleted: false,
    });
    await assert.rejects(
      unary(accounts, 'GetAccount', { accountId: empty }),
      (err: any) => err.code === grpc.status.NOT_FOUND,
    );
    assert.equal((await unary<any>(accounts, 'GetAccount', { accountId: holder })).account.accountId, holder);
    await assert.rejects(unary(accounts, 'ForgetUnusedAccount', { accountId: 'x' }), (err: any) => {
      assert.equal(err.code, grpc.status.INVALID_ARGUMENT);
      assert.ok(carries(err, 'invalid_input'));
      return true;
    });
  });
});
