/**
 * Every answer of the MCP endpoints says `Cache-Control: no-store`: start_skin_scan's answer holds the
 * scan's access_token and get_skin_scan's a person's scores, so no cache on the way (a proxy, the client's
 * HTTP stack) may keep one, as OAuth requires of its token responses (RFC 6749 §5.1). Refusals too: one
 * rule for the whole endpoint, nothing for a cache to tell apart.
 */
import assert from 'node:assert/strict';
import { JSON_RPC_HEADERS } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

describe('MCP answers are never cached', function () {
  this.timeout(60_000);
  let stack: Stack;

  before(async () => {
    stack = await startStack('mcp-no-store');
  });
  after(() => stack?.close());

  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${stack.baseUrl}${path}`, { method: 'POST', headers: { ...JSON_RPC_HEADERS, ...headers }, body });
  const start = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'start_skin_scan', arguments: { source: 'no-store' } },
  });

  for (const [title, accept] of [
    ['as JSON', 'application/json, text/event-stream'],
    ['as one SSE event', 'text/event-stream'],
  ] as const) {
    it(`start_skin_scan’s answer (holding the access_token) ${title}: no-store`, async () => {
      const res = await post('/mcp', start, { accept });
      assert.equal(res.status, 200);
      assert.match(await res.text(), /access_token/);
      assert.equal(res.headers.get('cache-control'), 'no-store');
    });
  }

  it('a tool error, a JSON-RPC error, a 405 and /mcp/account’s 401: no-store', async () => {
    const call = (name: string, args: object) =>
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name, arguments: args } });
    const answers = [
      await post(
        '/mcp',
        call('get_skin_scan', {
          run_id: '00000000-0000-4000-8000-000000000000',
          access_token: 'a'.repeat(64),
        }),
      ),
      await post('/mcp', '{'),
      await fetch(`${stack.baseUrl}/mcp`),
      await post('/mcp/account', call('get_skin_scan', {})),
    ];
    assert.deepEqual(
      answers.map((res) => res.status),
      [200, 400, 405, 401],
    );
    for (const res of answers) assert.equal(res.headers.get('cache-control'), 'no-store', String(res.status));
    assert.match(await answers[0]!.text(), /not_found/);
  });

  // The endpoint types its answers itself (endpoint.ts), not Koa per body: the same types as Koa gave.
  it('answers are typed JSON (UTF-8), one SSE event, or nothing for a 202, batches too', async () => {
    const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
    const notification = JSON.stringify(initialized);
    const list = { jsonrpc: '2.0', id: 3, method: 'tools/list' };
    const answers = [
      await post('/mcp', start),
      await post('/mcp', start, { accept: 'text/event-stream' }),
      await post('/mcp', '{'),
      await fetch(`${stack.baseUrl}/mcp`),
      await post('/mcp', notification),
      await post('/mcp', JSON.stringify([initialized])),
      await post('/mcp', JSON.stringify([list, initialized])),
    ];
    assert.deepEqual(
      answers.map((res) => [res.status, res.headers.get('content-type')]),
      [
        [200, 'application/json; charset=utf-8'],
        [200, 'text/event-stream'],
        [400, 'application/json; charset=utf-8'],
        [405, 'application/json; charset=utf-8'],
        [202, null],
        [202, null],
        [200, 'application/json; charset=utf-8'],
      ],
    );
    assert.equal(await answers[4]!.text(), '');
    assert.equal(await answers[5]!.text(), '');
    assert.equal(((await answers[6]!.json()) as unknown[]).length, 1);
  });
});
