import assert from 'node:assert/strict';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { AtRestKeys } from '../../facade/oauth/at-rest.ts';
import { stateAdapterClass } from '../../facade/oauth/state-adapter.ts';
import { OAuthStateService } from '../../gen/skinmatch/v1/oauth_state_pb.ts';
import { purgeExpiredState } from '../../services/account/oauth-state-service.ts';
import { createAccount } from '../support/bearer.ts';
import { type Stack, startStack } from '../support/stack.ts';

describe('the authorization server state adapter (OAuthStateService in PostgreSQL)', () => {
  let stack: Stack;
  let Adapter: ReturnType<typeof stateAdapterClass>;
  let state: ReturnType<typeof createClient<typeof OAuthStateService>>;

  before(async () => {
    stack = await startStack('oauth-state');
    state = createClient(OAuthStateService, createGrpcTransport({ baseUrl: stack.coreUrl }));
    Adapter = stateAdapterClass(state, new AtRestKeys(['k'.repeat(32)]));
  });
  after(() => stack?.close());

  const rows = async (where = 'true') =>
    stack.orm.em
      .getConnection()
      .execute<{ model: string; id: string; payload: string }[]>(
        `select model, id, payload::text as payload from oauth_state where ${where}`,
      );

  it('upsert then find returns the payload; upsert again replaces it; models do not mix', async () => {
    const sessions = new Adapter('Session');
    const grants = new Adapter('Grant');
    await sessions.upsert('s1', { uid: 'u1', kind: 'Session', exp: 1 } as never, 60);
    assert.deepEqual(await sessions.find('s1'), { uid: 'u1', kind: 'Session', exp: 1 });
    await sessions.upsert('s1', { uid: 'u2', kind: 'Session' } as never, 60);
    assert.deepEqual(await sessions.find('s1'), { uid: 'u2', kind: 'Session' });
    assert.equal(await grants.find('s1'), undefined);
    assert.equal(await sessions.find('nope'), undefined);
  });

  it('findByUid and findByUserCode use their secondary keys', async () => {
    const sessions = new Adapter('Session');
    await sessions.upsert('s2', { uid: 'uid-2' } as never, 60);
    assert.deepEqual(await sessions.findByUid('uid-2'), { uid: 'uid-2' });
    assert.equal(await sessions.findByUid('uid-x'), undefined);
    const device = new Adapter('DeviceCode');
    await device.upsert('d1', { userCode: 'ABCD-EFGH', grantId: 'g9' } as never, 60);
    assert.deepEqual(await device.findByUserCode('ABCD-EFGH'), { userCode: 'ABCD-EFGH', grantId: 'g9' });
  });

  it('consume marks a record used: find then carries `consumed`', async () => {
    const codes = new Adapter('AuthorizationCode');
    await codes.upsert('c1', { grantId: 'g1' } as never, 60);
    await codes.consume('c1');
    const found = (await codes.find('c1')) as { consumed?: number };
    assert.equal(typeof found.consumed, 'number');
    assert.ok(Math.abs(found.consumed! - Date.now() / 1000) < 60);
  });

  it('destroy deletes one record; revokeByGrantId deletes every record of the grant', async () => {
    const codes = new Adapter('AuthorizationCode');
    const refresh = new Adapter('RefreshToken');
    await codes.upsert('c2', { grantId: 'g2' } as never, 60);
    await refresh.upsert('r2', { grantId: 'g2' } as never, 60);
    await refresh.upsert('r3', { grantId: 'g3' } as never, 60);
    await codes.destroy('c2');
    assert.equal(await codes.find('c2'), undefined);
    await refresh.upsert('c2b', { grantId: 'g2' } as never, 60);
    await refresh.revokeByGrantId('g2');
    assert.equal(await refresh.find('r2'), undefined);
    assert.equal(await refresh.find('c2b'), undefined);
    assert.deepEqual(await refresh.find('r3'), { grantId: 'g3' });
  });

  it('an expired record is never returned, and the purge deletes it', async () => {
    const sessions = new Adapter('Session');
    await sessions.upsert('old', { uid: 'old-uid' } as never, 1);
    await stack.orm.em
      .getConnection()
      .execute(`update oauth_state set expires_at = now() - interval '1 second' where uid = 'old-uid'`);
    assert.equal(await sessions.find('old'), undefined);
    assert.equal(await sessions.findByUid('old-uid'), undefined);
    assert.equal((await rows(`uid = 'old-uid'`)).length, 1);
    assert.ok((await purgeExpiredState(stack.orm.em.fork())) >= 1);
    assert.equal((await rows(`uid = 'old-uid'`)).length, 0);
    assert.ok((await rows()).length > 0, 'live records stay');
  });

  it('a record of an account is deleted with the account', async () => {
    const accountId = await createAccount(stack.coreUrl, 'state-owner');
    const grants = new Adapter('Grant');
    await grants.upsert('owned', { accountId, clientId: 'c' } as never, 60);
    const interactions = new Adapter('Interaction');
    await interactions.upsert('i1', { result: { login: { accountId } } } as never, 60);
    await stack.orm.em.getConnection().execute('delete from accounts where id = ?', [accountId]);
    assert.equal(await grants.find('owned'), undefined);
    assert.equal(await interactions.find('i1'), undefined);
  });

  it('ids are stored as keyed hashes; with a new key in front (rotation) records are still found', async () => {
    const [oldKey, newKey] = [
      new AtRestKeys(['a'.repeat(32)]),
      new AtRestKeys(['b'.repeat(32), 'a'.repeat(32)]),
    ];
    const before = stateAdapterClass(state, oldKey);
    const after = stateAdapterClass(state, newKey);
    await new before('AuthorizationCode').upsert(
      'code-live-value',
      { jti: 'code-live-value', grantId: 'g7' } as never,
      60,
    );
    assert.equal((await rows(`payload::text like '%code-live-value%' or id = 'code-live-value'`)).length, 0);
    const codes = new after('AuthorizationCode');
    assert.deepEqual(await codes.find('code-live-value'), { jti: 'code-live-value', grantId: 'g7' });
    assert.equal(
      await new (stateAdapterClass(state, new AtRestKeys(['c'.repeat(32)])))('AuthorizationCode').find(
        'code-live-value',
      ),
      undefined,
    );
    await codes.consume('code-live-value');
    assert.equal(typeof ((await codes.find('code-live-value')) as { consumed?: number }).consumed, 'number');
    await codes.destroy('code-live-value');
    assert.equal(await new before('AuthorizationCode').find('code-live-value'), undefined);

    // A client's secret: sealed; sealed under the old key or in clear (an older façade), sealed anew when read.
    await new before('Client').upsert('client-9', {
      client_id: 'client-9',
      client_secret: 'secret-of-client-9',
    } as never);
    assert.equal((await rows(`payload::text like '%secret-of-client-9%'`)).length, 0);
    const sealedOld = (await rows(`id = 'client-9'`))[0]!;
    assert.deepEqual(await new after('Client').find('client-9'), {
      client_id: 'client-9',
      client_secret: 'secret-of-client-9',
    });
    assert.notEqual(
      (await rows(`id = 'client-9'`))[0]!.payload,
      sealedOld.payload,
      'sealed under the new key',
    );
    assert.deepEqual(
      await new (stateAdapterClass(state, new AtRestKeys(['b'.repeat(32)])))('Client').find('client-9'),
      {
        client_id: 'client-9',
        client_secret: 'secret-of-client-9',
      },
    );
    await state.upsertState({
      model: 'Client',
      id: 'client-10',
      payload: { client_secret: 'clear-secret-10' },
      expiresIn: 0n,
    });
    assert.deepEqual(await new after('Client').find('client-10'), { client_secret: 'clear-secret-10' });
    assert.equal((await rows(`payload::text like '%clear-secret-10%'`)).length, 0);
  });

  it('an unusable model name is invalid_input', async () => {
    await assert.rejects(new Adapter('Drop Table').find('x'), /model must be a provider model name/);
  });
});
