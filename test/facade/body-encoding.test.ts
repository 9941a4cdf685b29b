/**
 * How the MCP endpoints read a request body's bytes: UTF-8 strictly (a body that is not UTF-8 is a parse
 * error, never read with U+FFFD in place of its bytes), and only uncompressed (any Content-Encoding but
 * identity is 415, RFC 9110 §15.5.16), on /mcp and on /mcp/account alike.
 */
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { createAccount, mintToken } from '../support/bearer.ts';
import { JSON_RPC_HEADERS } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

describe('MCP request bodies: UTF-8 only, uncompressed only', () => {
  let stack: Stack;
  let bearer: string;

  before(async () => {
    stack = await startStack('body-encoding');
    bearer = `Bearer ${await mintToken(stack, await createAccount(stack.coreUrl, 'bytes'))}`;
  });
  after(() => stack?.close());

  const post = (path: string, body: Buffer | string, headers: Record<string, string> = {}) =>
    fetch(`${stack.baseUrl}${path}`, {
      method: 'POST',
      headers: {
        ...JSON_RPC_HEADERS,
        ...(path === '/mcp/account' ? { authorization: bearer } : {}),
        ...headers,
      },
      body,
    });
  const scans = async () =>
    Number((await stack.orm.em.getConnection().execute('select count(*) as n from scans'))[0]!.n);
  const call = (source: string) =>
    `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"start_skin_scan","arguments":{"source":"${source}"}}}`;

  for (const path of ['/mcp', '/mcp/account']) {
    describe(path, () => {
      const notUtf8: [string, Buffer][] = [
        ['a lone continuation byte', Buffer.from([0x80])],
        ['a truncated sequence', Buffer.from([0xe2, 0x82])],
        ['an overlong "/"', Buffer.from([0xc0, 0xaf])],
        ['an encoded surrogate', Buffer.from([0xed, 0xa0, 0x80])],
        ['Latin-1 "é"', Buffer.from([0xe9])],
      ];
      for (const [title, bytes] of notUtf8) {
        it(`${title} inside a string → HTTP 400, -32700, id null; nothing is done`, async () => {
          const [head, tail] = call('X').split('X') as [string, string];
          const before = await scans();
          const res = await post(path, Buffer.concat([Buffer.from(head), bytes, Buffer.from(tail)]));
          assert.equal(await scans(), before, 'no scan started');
          assert.equal(res.status, 400);
          assert.deepEqual(await res.json(), {
            jsonrpc: '2.0',
            id: null,
            error: { code: -32700, message: 'Parse error: the body is not valid UTF-8.' },
          });
        });
      }

      it('valid UTF-8 (and a leading byte-order mark) is read as sent', async () => {
        const res = await post(
          path,
          Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(call('é𝒜'))]),
        );
        assert.equal(res.status, 200);
        const body = (await res.json()) as any;
        assert.equal(body.id, 4);
        assert.equal(body.result.isError, undefined, JSON.stringify(body.result));
      });

      for (const coding of ['gzip', 'deflate', 'br', 'x-custom']) {
        it(`Content-Encoding: ${coding} → HTTP 415 with Accept-Encoding: identity`, async () => {
          const list = '{"jsonrpc":"2.0","id":5,"method":"tools/list"}';
          const res = await post(path, coding === 'gzip' ? gzipSync(list) : list, {
            'content-encoding': coding,
          });
          assert.equal(res.status, 415);
          assert.equal(res.headers.get('accept-encoding'), 'identity');
          assert.deepEqual(await res.json(), {
            jsonrpc: '2.0',
            id: null,
            error: {
              code: -32000,
              message: 'Content-Encoding is not supported: send the body uncompressed.',
            },
          });
        });
      }

      it('Content-Encoding: identity is no coding at all', async () => {
        const res = await post(path, '{"jsonrpc":"2.0","id":6,"method":"ping"}', {
          'content-encoding': 'Identity',
        });
        assert.equal(res.status, 200);
        assert.deepEqual(await res.json(), { jsonrpc: '2.0', id: 6, result: {} });
      });
    });
  }
});
