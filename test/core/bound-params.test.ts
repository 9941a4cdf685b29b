import assert from 'node:assert/strict';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import * as grpc from '@grpc/grpc-js';
import { raw } from '@mikro-orm/core';
import { PostgreSqlPlatform } from '@mikro-orm/postgresql';
import pg from 'pg';
import { OAuthStateService } from '../../gen/skinmatch/v1/oauth_state_pb.ts';
import { bindParams } from '../../services/core/db/bound-params.ts';
import { completeScan, HEALTHY_SCORES, TEST_CATALOG } from '../support/fixtures.ts';
import { loadProto, unary } from '../support/grpc-js.ts';
import { callTool } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

/**
 * Every value core writes travels as a bound parameter, never in a statement's text: PostgreSQL shows that
 * text in pg_stat_activity and logs it for a statement that fails, is cancelled or is slow, and those
 * copies outlive every deletion (services/core/db/bound-params.ts). Each case holds a table lock the write
 * waits for and reads the waiting statement's text: through MikroORM (a sign-in's upstream subject, an
 * OAuth state row) and through plain statements (a stated skin type, a scan's token hash).
 */
describe('values written are never in a statement’s text (pg_stat_activity)', function () {
  this.timeout(60_000);
  let stack: Stack;
  let blocker: pg.Client;
  /** Outside the blocker's transaction: a transaction reads pg_stat_activity once and keeps that snapshot. */
  let observer: pg.Client;
  let accounts: grpc.Client;
  let state: ReturnType<typeof createClient<typeof OAuthStateService>>;

  before(async () => {
    stack = await startStack('bound-params', { products: TEST_CATALOG });
    blocker = new pg.Client({ connectionString: stack.databaseUrl });
    observer = new pg.Client({ connectionString: stack.databaseUrl });
    await Promise.all([blocker.connect(), observer.connect()]);
    const { skinmatch } = loadProto('skinmatch/v1/account.proto');
    accounts = new skinmatch.v1.AccountService(
      new URL(stack.coreUrl).host,
      grpc.credentials.createInsecure(),
    );
    state = createClient(OAuthStateService, createGrpcTransport({ baseUrl: stack.coreUrl }));
  });
  after(async () => {
    accounts?.close();
    await blocker?.end();
    await observer?.end();
    await stack?.close();
  });

  /**
   * Runs `write` while `table` is locked against writes (SHARE conflicts with ROW EXCLUSIVE; reads go
   * on), and answers the text of its statement that waits, matched by `like`, with what `write` answered.
   */
  async function heldWrite<T>(table: string, like: string, write: () => Promise<T>) {
    await blocker.query('begin');
    await blocker.query(`lock table ${table} in share mode`);
    const written = write();
    let text: string | undefined;
    try {
      for (let waited = 0; text === undefined && waited < 20_000; waited += 25) {
        const { rows } = await observer.query<{ query: string }>(
          `select query from pg_stat_activity
           where datname = current_database() and wait_event_type = 'Lock' and query ilike $1`,
          [like],
        );
        if (rows[0]) text = rows[0].query;
        else await new Promise((r) => setTimeout(r, 25));
      }
    } finally {
      await blocker.query('rollback');
    }
    const answer = await written;
    assert.ok(text !== undefined, `no statement like ${like} waited for the lock on ${table}`);
    return { text, answer };
  }

  it('SignIn: the upstream subject and provider are not in the text (MikroORM execute)', async () => {
    const subject = 'subject-7c41d2e9';
    const provider = 'https://idp.example/realm-5b2e';
    const { text, answer } = await heldWrite('accounts', '%accounts%', () =>
      unary<any>(accounts, 'SignIn', { provider, subject }),
    );
    assert.equal(answer.created, true);
    assert.ok(
      !text.includes(subject) && !text.includes(provider),
      `the identity is in the statement: ${text}`,
    );
    assert.match(text, /\$1/);
  });

  it('UpsertState: the row’s id, uid and payload are not in the text (MikroORM execute)', async () => {
    const id = 'session-id-3a9f07c1';
    const uid = 'uid-e2c4b6a8';
    const { text } = await heldWrite('oauth_state', '%oauth_state%', () =>
      state.upsertState({
        model: 'Session',
        id,
        payload: { uid, kind: 'Session', marker: 'payload-91d3' },
        expiresIn: 60n,
      }),
    );
    for (const value of [id, uid, 'payload-91d3']) {
      assert.ok(!text.includes(value), `${value} is in the statement: ${text}`);
    }
    const stored = await observer.query('select payload->>$2 as uid from oauth_state where id = $1', [
      id,
      'uid',
    ]);
    assert.equal(stored.rows[0]?.uid, uid);
  });

  it('recommend_products: the stated skin type and the scan are not in the allowance’s insert', async () => {
    const started = await callTool(stack.baseUrl, 'start_skin_scan', { source: 'bound params' });
    const { run_id, access_token } = started.structuredContent;
    await completeScan(stack.orm, run_id, HEALTHY_SCORES);
    const { text, answer } = await heldWrite('scan_matches', '%insert into scan_matches%', () =>
      callTool(stack.baseUrl, 'recommend_products', { run_id, access_token, skin_type: 'oily' }),
    );
    assert.match(answer.structuredContent.match_basis, /fitted to the stated oily skin type/);
    assert.ok(
      !text.includes('oily') && !text.includes(run_id),
      `the match's values are in the statement: ${text}`,
    );
  });

  it('start_skin_scan: the scan’s token hash is not in the insert', async () => {
    const { text, answer } = await heldWrite('scans', 'insert into%scans%', () =>
      callTool(stack.baseUrl, 'start_skin_scan', { source: 'bound params' }),
    );
    assert.match(answer.structuredContent.access_token, /^[0-9a-f]{64}$/);
    assert.doesNotMatch(text, /[0-9a-f]{64}/i, `a 64-hex value is in the statement: ${text}`);
  });
});

describe('bindParams: formatQuery’s rules, with the values beside the text', () => {
  const platform = new PostgreSqlPlatform();

  it('numbers placeholders; lists, JSON, dates, bytes and raw fragments as formatQuery reads them', () => {
    const at = new Date('2026-01-02T03:04:05.006Z');
    const { text, values } = bindParams(
      platform,
      'select ?? from t where id in (?) and doc = ? and at = ? and img = ? and k = ? and n is ? and j \\? ?',
      ['t.col', ['a', 2], { k: 'v' }, at, Buffer.from([1, 2]), raw('lower(?)', ['X']), null, 'key'],
    );
    assert.equal(
      text,
      'select "t"."col" from t where id in ($1, $2) and doc = $3 and at = $4 and img = $5 and k = lower($6) and n is null and j ? $7',
    );
    assert.deepEqual(values, [
      'a',
      '2',
      '{"k":"v"}',
      platform.formatDate(at),
      Buffer.from([1, 2]),
      'X',
      'key',
    ]);
  });
});
