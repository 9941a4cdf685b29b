/**
 * What an internal caller gets for a request the services cannot take: a gRPC status naming the fault
 * (INVALID_ARGUMENT with the field, RESOURCE_EXHAUSTED for a message over the bound), never INTERNAL, and
 * the server goes on answering. Through @grpc/grpc-js, as an internal system calls core.
 */
import assert from 'node:assert/strict';
import { Code, type ConnectError, createClient } from '@connectrpc/connect';
import { findTrailerError } from '@connectrpc/connect/protocol-grpc';
import { createConnectTransport } from '@connectrpc/connect-node';
import * as grpc from '@grpc/grpc-js';
import { ErrorInfoSchema } from '../../gen/google/rpc/error_details_pb.ts';
import { ScanService } from '../../gen/skinmatch/v1/scan_pb.ts';
import { requestMaxBytes } from '../../services/core/core.ts';
import { DEFAULT_READ_MAX_BYTES } from '../../services/shared/server.ts';
import { loadProto, unary } from '../support/grpc-js.ts';
import { type Stack, startStack } from '../support/stack.ts';

/** The code, ErrorInfo reason and `field` metadata of a refusal, as grpc-js hands them over. */
function refusal(err: grpc.ServiceError) {
  const details = err.metadata.get('grpc-status-details-bin')[0] as Buffer | undefined;
  const trailer = new Headers({ 'grpc-status': String(err.code) });
  if (details) trailer.set('grpc-status-details-bin', details.toString('base64'));
  const [info] = findTrailerError(trailer)?.findDetails(ErrorInfoSchema) ?? [];
  return { code: grpc.status[err.code], reason: info?.reason, field: info?.metadata.field };
}

async function refused(call: Promise<unknown>) {
  try {
    await call;
  } catch (err) {
    return refusal(err as grpc.ServiceError);
  }
  assert.fail('the call succeeded');
}

describe('core over gRPC: requests it cannot take', () => {
  let stack: Stack;
  let scans: any;
  let account: any;
  let oauthState: any;
  let catalog: any;

  before(async () => {
    stack = await startStack('grpc-requests');
    const target = new URL(stack.coreUrl).host;
    const credentials = grpc.credentials.createInsecure();
    const v1 = (file: string) => loadProto(`skinmatch/v1/${file}.proto`).skinmatch.v1;
    scans = new (v1('scan').ScanService)(target, credentials);
    account = new (v1('account').AccountService)(target, credentials);
    oauthState = new (v1('oauth_state').OAuthStateService)(target, credentials);
    catalog = new (v1('catalog').CatalogService)(target, credentials);
  });
  after(async () => {
    for (const client of [scans, account, oauthState, catalog]) client?.close();
    await stack?.close();
  });

  it('a NUL character in any text is INVALID_ARGUMENT naming the field (was INTERNAL from PostgreSQL)', async () => {
    const before = await stack.orm.em.getConnection().execute('select count(*)::int as n from scans');
    assert.deepEqual(await refused(unary(scans, 'startScan', { source: 'agent\u0000name' })), {
      code: 'INVALID_ARGUMENT',
      reason: 'invalid_input',
      field: 'source',
    });
    const after = await stack.orm.em.getConnection().execute('select count(*)::int as n from scans');
    assert.deepEqual(after, before, 'no scan was started');

    const signIn = { provider: 'https://issuer.example', subject: 'person\u0000' };
    assert.deepEqual(await refused(unary(account, 'signIn', signIn)), {
      code: 'INVALID_ARGUMENT',
      reason: 'invalid_input',
      field: 'subject',
    });
    // In a google.protobuf.Struct: a value, and a key (jsonb holds neither).
    for (const fields of [{ name: { stringValue: 'a\u0000b' } }, { 'na\u0000me': { stringValue: 'ab' } }]) {
      const state = { model: 'Session', id: 'abc', payload: { fields }, expiresIn: 60 };
      assert.deepEqual(await refused(unary(oauthState, 'upsertState', state)), {
        code: 'INVALID_ARGUMENT',
        reason: 'invalid_input',
        field: 'payload',
      });
    }
    // In a repeated field of a nested message.
    const search = { filter: { freeFrom: ['parabens', 'sul\u0000fates'] } };
    assert.deepEqual(await refused(unary(catalog, 'searchProducts', search)), {
      code: 'INVALID_ARGUMENT',
      reason: 'invalid_input',
      field: 'filter',
    });
    // The same requests without the NUL are answered.
    assert.ok(((await unary(scans, 'startScan', { source: 'agent name' })) as any).runId);
    assert.ok(((await unary(account, 'signIn', { ...signIn, subject: 'person' })) as any).account);
  });

  it('a product_id or ingredient name longer than any in the catalog is INVALID_ARGUMENT (was a reset stream)', async () => {
    const huge = 'x'.repeat(1024 * 1024);
    assert.deepEqual(await refused(unary(catalog, 'getProduct', { productId: huge })), {
      code: 'INVALID_ARGUMENT',
      reason: 'invalid_input',
      field: 'product_id',
    });
    assert.deepEqual(await refused(unary(catalog, 'getIngredient', { name: huge })), {
      code: 'INVALID_ARGUMENT',
      reason: 'invalid_input',
      field: 'name',
    });
    // 200 characters (the tools' bound) is still a name that is looked up.
    assert.equal(
      (await refused(unary(catalog, 'getIngredient', { name: 'y'.repeat(200) }))).code,
      'NOT_FOUND',
    );
  });

  it('OAuth state with an id, grant, uid or user code too long, or a lifetime past ten years, is INVALID_ARGUMENT (was INTERNAL)', async () => {
    const upsert = (state: object) =>
      unary(oauthState, 'upsertState', { model: 'Session', id: 'state-1', expiresIn: '60', ...state });
    const payload = (key: string, value: string) => ({ fields: { [key]: { stringValue: value } } });
    const cases: Array<[object, string]> = [
      [{ expiresIn: '9223372036854775807' }, 'expires_in'], // PostgreSQL: interval out of range
      [{ expiresIn: '1000000000000' }, 'expires_in'], // was kept, to the year ~33 700
      [{ expiresIn: '-1' }, 'expires_in'],
      [{ id: 'i'.repeat(1024 * 1024) }, 'id'], // PostgreSQL: index row too big
      [{ payload: payload('grantId', 'g'.repeat(100_000)) }, 'payload.grantId'],
      [{ payload: payload('uid', 'u'.repeat(100_000)) }, 'payload.uid'],
      [{ payload: payload('userCode', 'c'.repeat(257)) }, 'payload.userCode'],
    ];
    for (const [state, field] of cases) {
      assert.deepEqual(await refused(upsert(state)), {
        code: 'INVALID_ARGUMENT',
        reason: 'invalid_input',
        field,
      });
    }
    const stored = await stack.orm.em
      .getConnection()
      .execute("select count(*)::int as n from oauth_state where model = 'Session'");
    assert.deepEqual(stored, [{ n: 0 }], 'nothing was stored');
    // What oidc-provider sends is stored: 43-character ids, ten years, no lifetime (the default).
    const longest = { id: 't'.repeat(256), payload: payload('grantId', 'g'.repeat(256)) };
    for (const expiresIn of ['315360000', '0', '2592000']) await upsert({ ...longest, expiresIn });
    await upsert({ id: 'x'.repeat(43), payload: payload('uid', 'u'.repeat(21)) });
    const found: any = await unary(oauthState, 'findState', { model: 'Session', id: 'x'.repeat(43) });
    assert.equal(found.state.payload.fields.uid.stringValue, 'u'.repeat(21));
  });

  it('a search query longer than the tools take is INVALID_ARGUMENT at once (a 9 MB query held core 4-7 s)', async () => {
    // 4 MB: the most any method but UploadPhoto reads (a 9 MB one is refused unread, RESOURCE_EXHAUSTED).
    const huge = 'vitamin c '.repeat(400_000);
    // Core runs in this process: the CPU time spent tells a refusal from a search whatever the machine's
    // load, wall time does not (at load 11 these two refusals took 3.3 s, 0.3 s of CPU; searching first,
    // then refusing, took 1.7 s of CPU).
    const cpu = process.cpuUsage();
    assert.deepEqual(await refused(unary(catalog, 'searchProducts', { query: huge })), {
      code: 'INVALID_ARGUMENT',
      reason: 'invalid_input',
      field: 'query',
    });
    assert.deepEqual(await refused(unary(catalog, 'searchIngredients', { query: huge })), {
      code: 'INVALID_ARGUMENT',
      reason: 'invalid_input',
      field: 'query',
    });
    const spent = process.cpuUsage(cpu);
    const cpuMs = (spent.user + spent.system) / 1000;
    assert.ok(cpuMs < 1000, `refused without searching (${Math.round(cpuMs)} ms of CPU)`);
    // 200 characters (the tools' bound) is a query; 201 is not. Characters, not UTF-16 units.
    assert.ok(await unary(catalog, 'searchProducts', { query: '😀'.repeat(200) }));
    assert.ok(await unary(catalog, 'searchIngredients', { query: 'y'.repeat(200) }));
    assert.equal(
      (await refused(unary(catalog, 'searchProducts', { query: 'y'.repeat(201) }))).field,
      'query',
    );
  });

  it('a request message that does not parse is INVALID_ARGUMENT invalid_input on every service (was INTERNAL)', async () => {
    const target = new URL(stack.coreUrl).host;
    const client = new grpc.Client(target, grpc.credentials.createInsecure());
    const raw = (bytes: Buffer) => bytes;
    // Field 1 declared 5 bytes long, 1 byte sent.
    const truncated = Buffer.from([0x0a, 0x05, 0x61]);
    try {
      for (const path of [
        '/skinmatch.v1.ScanService/GetScan',
        '/skinmatch.v1.MatchService/RecommendProducts',
        '/skinmatch.v1.CatalogService/GetProduct',
        '/skinmatch.v1.AccountService/SignIn',
      ]) {
        const call = new Promise<unknown>((done, fail) =>
          client.makeUnaryRequest(path, raw, raw, truncated, (err, res) => (err ? fail(err) : done(res))),
        );
        assert.deepEqual(
          await refused(call),
          { code: 'INVALID_ARGUMENT', reason: 'invalid_input', field: undefined },
          path,
        );
      }
    } finally {
      client.close();
    }
  });

  it('an empty product_id or ingredient name is INVALID_ARGUMENT, as the tools require one (was NOT_FOUND)', async () => {
    assert.deepEqual(await refused(unary(catalog, 'getProduct', { productId: '' })), {
      code: 'INVALID_ARGUMENT',
      reason: 'invalid_input',
      field: 'product_id',
    });
    assert.deepEqual(await refused(unary(catalog, 'getIngredient', { name: '' })), {
      code: 'INVALID_ARGUMENT',
      reason: 'invalid_input',
      field: 'name',
    });
  });
});

describe('core over gRPC: a request message over the bound', () => {
  it('is RESOURCE_EXHAUSTED over gRPC and Connect, the next call is answered, and core still closes', async () => {
    // Core's bound leaves room for a photo of PHOTO_MAX_BYTES and what surrounds it.
    assert.equal(requestMaxBytes(10 * 1024 * 1024), 10 * 1024 * 1024 + 64 * 1024);
    assert.equal(requestMaxBytes(1024), DEFAULT_READ_MAX_BYTES);
    // Only UploadPhoto reads up to that bound (test/core/server-limits.test.ts); every other method 4 MiB.
    const limit = DEFAULT_READ_MAX_BYTES;
    const stack = await startStack('grpc-request-size');
    let closed = false;
    try {
      // The caller's own bound out of the way: what is tested is the server's.
      const scans = new (loadProto('skinmatch/v1/scan.proto').skinmatch.v1.ScanService)(
        new URL(stack.coreUrl).host,
        grpc.credentials.createInsecure(),
        { 'grpc.max_send_message_length': -1 },
      );
      const tooLarge = { runId: 'a'.repeat(limit + 1), accessToken: 'f'.repeat(64) };
      assert.deepEqual(await refused(unary(scans, 'getScan', tooLarge)), {
        code: 'RESOURCE_EXHAUSTED',
        reason: undefined,
        field: undefined,
      });
      // Just under the bound: read, and refused for what it says.
      const justUnder = { runId: 'a'.repeat(limit - 100), accessToken: 'f'.repeat(64) };
      assert.deepEqual(await refused(unary(scans, 'getScan', justUnder)), {
        code: 'INVALID_ARGUMENT',
        reason: 'invalid_input',
        field: 'run_id',
      });
      assert.ok(((await unary(scans, 'startScan', { source: 'after' })) as any).runId);
      scans.close();

      // The Connect protocol, as the façade calls core.
      const connect = createClient(
        ScanService,
        createConnectTransport({ baseUrl: stack.coreUrl, httpVersion: '2' }),
      );
      await assert.rejects(connect.getScan(tooLarge), (err: ConnectError) => {
        assert.equal(err.code, Code.ResourceExhausted);
        return true;
      });
      assert.ok((await connect.startScan({ source: 'after' })).runId);

      // The refused streams are not left open: a graceful close of core returns (it waited forever).
      const closing = stack.close().then(() => {
        closed = true;
      });
      await Promise.race([closing, new Promise((done) => setTimeout(done, 15_000))]);
      assert.ok(closed, 'the stack closed within 15 s');
    } finally {
      if (!closed) await stack.close().catch(() => undefined);
    }
  });
});
