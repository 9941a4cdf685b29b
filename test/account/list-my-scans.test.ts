import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createAccount, mintToken } from '../support/bearer.ts';
import { connectSdkClient } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

describe('list_my_scans pages by a keyset cursor (real MCP SDK client)', () => {
  let stack: Stack;
  const clients: Client[] = [];

  before(async () => {
    stack = await startStack('list-my-scans');
  });
  after(async () => {
    for (const client of clients) await client.close();
    await stack?.close();
  });

  /** A new account and an SDK client signed in to it. */
  async function person(name: string) {
    const accountId = await createAccount(stack.coreUrl, name);
    const authorization = `Bearer ${await mintToken(stack, accountId)}`;
    const client = await connectSdkClient(stack.baseUrl, '/mcp/account', { authorization });
    clients.push(client);
    const call = async (tool: string, args: Record<string, unknown>) =>
      (await client.callTool({ name: tool, arguments: args })) as {
        isError?: boolean;
        structuredContent: Record<string, any>;
      };
    const page = async (args: Record<string, unknown>) => {
      const result = await call('list_my_scans', args);
      assert.equal(result.isError, undefined, JSON.stringify(result.structuredContent));
      return result.structuredContent as { scans: { run_id: string }[]; next_page_token?: string };
    };
    return { accountId, call, page };
  }

  /** `count` scans started a day ago, two to a millisecond (the run_id breaks the tie); newest first. */
  async function seed(accountId: string, count: number): Promise<string[]> {
    const ordered = await stack.orm.em.getConnection().execute<{ id: string }[]>(
      `with started as (
         insert into scans (id, token_hash, source, created_at, updated_at, expires_at, account_id)
         select gen_random_uuid(), md5(i::text), 'seed', t, t, t + interval '7 days', ?
         from generate_series(1, ?) i, lateral (
           select date_trunc('milliseconds', now()) - interval '1 day' + (i / 2) * interval '1 millisecond' as t
         ) s
         returning id, created_at
       )
       select id from started order by created_at desc, id desc`,
      [accountId, count],
    );
    return ordered.map((r) => r.id);
  }

  const ids = (page: { scans: { run_id: string }[] }) => page.scans.map((s) => s.run_id);

  it('scans started between pages neither repeat an item nor push one off; the last page has no token', async () => {
    const { accountId, call, page } = await person('starts-between-pages');
    const seeded = await seed(accountId, 7);
    const first = await page({ page_size: 3 });
    assert.deepEqual(ids(first), seeded.slice(0, 3));
    for (const source of ['new-1', 'new-2']) await call('start_skin_scan', { source });
    const second = await page({ page_size: 3, page_token: first.next_page_token });
    assert.deepEqual(ids(second), seeded.slice(3, 6));
    await call('start_skin_scan', { source: 'new-3' });
    const last = await page({ page_size: 3, page_token: second.next_page_token });
    assert.deepEqual(last, { scans: [last.scans[0]] });
    assert.equal(last.scans[0]?.run_id, seeded[6]);
  });

  it('scans deleted between pages, the last one listed among them, leave no gap', async () => {
    const { accountId, call, page } = await person('deletes-between-pages');
    const seeded = await seed(accountId, 7);
    const first = await page({ page_size: 3 });
    assert.deepEqual(ids(first), seeded.slice(0, 3));
    for (const runId of [seeded[0], seeded[2]]) {
      assert.equal((await call('delete_skin_scan', { run_id: runId })).isError, undefined);
    }
    const second = await page({ page_size: 3, page_token: first.next_page_token });
    assert.deepEqual(ids(second), seeded.slice(3, 6));
    await call('delete_skin_scan', { run_id: seeded[5] });
    const last = await page({ page_size: 3, page_token: second.next_page_token });
    assert.deepEqual(ids(last), [seeded[6]]);
    assert.equal(last.next_page_token, undefined);
  });

  it('a token this service did not issue to this account is invalid_input naming page_token', async () => {
    const { accountId, call, page } = await person('bad-tokens');
    await seed(accountId, 3);
    const token = (await page({ page_size: 1 })).next_page_token!;
    const other = await person('another-account');
    await seed(other.accountId, 3);
    const othersToken = (await other.page({ page_size: 1 })).next_page_token!;
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    const notIssued = {
      random: 'zz',
      offsetLike: '99999999',
      tamperedAtStart: flip(token, 0),
      tamperedInTheMiddle: flip(token, 20),
      tamperedTag: flip(token, token.length - 1),
      truncated: token.slice(0, -4),
      extended: `${token}AAAA`,
      padded: `${token}=`,
      base64Json: Buffer.from(JSON.stringify({ created_at: 0, run_id: 'x' })).toString('base64url'),
      anotherAccounts: othersToken,
    };
    for (const [name, pageToken] of Object.entries(notIssued)) {
      const result = await call('list_my_scans', { page_token: pageToken });
      assert.equal(result.isError, true, name);
      assert.deepEqual(
        result.structuredContent.error,
        { code: 'invalid_input', message: 'page_token is not one this service issued.', field: 'page_token' },
        name,
      );
    }
    const empty = await call('list_my_scans', { page_token: '' });
    assert.equal(empty.isError, true);
    assert.equal(empty.structuredContent.error.code, 'invalid_input');
    assert.equal(empty.structuredContent.error.field, 'page_token');
  });

  it('page_size: 20 by default, 1 to 100', async () => {
    const { accountId, call, page } = await person('page-sizes');
    const seeded = await seed(accountId, 25);
    const first = await page({});
    assert.deepEqual(ids(first), seeded.slice(0, 20));
    assert.deepEqual(ids(await page({ page_token: first.next_page_token })), seeded.slice(20));
    assert.deepEqual(ids(await page({ page_size: 100 })), seeded);
    assert.deepEqual(ids(await page({ page_size: 1 })), seeded.slice(0, 1));
    for (const pageSize of [0, 101, 2.5]) {
      const result = await call('list_my_scans', { page_size: pageSize });
      assert.equal(result.structuredContent.error?.code, 'invalid_input', String(pageSize));
      assert.equal(result.structuredContent.error?.field, 'page_size', String(pageSize));
    }
  });
});
