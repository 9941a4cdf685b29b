/**
 * `"params": null` is a message without params: clients write an absent member as null (a Rust client
 * serialising `None`, a typed record written with its nulls), and the Python SDK's servers take it. Other
 * params that are not an object stay -32602 (protocol-edges.test.ts).
 */
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { rpc } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

/** The SDK client, each message it sends without params written with `"params": null` instead. */
async function clientWritingNulls(stack: Stack): Promise<{ client: Client; nulls: string[] }> {
  const nulls: string[] = [];
  const client = new Client({ name: 'null-params', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', stack.baseUrl), {
    fetch: (input, init) => {
      if (typeof init?.body !== 'string') return fetch(input, init);
      const message = JSON.parse(init.body);
      if (message.params === undefined) {
        nulls.push(message.method);
        return fetch(input, { ...init, body: JSON.stringify({ ...message, params: null }) });
      }
      return fetch(input, init);
    },
  });
  await client.connect(transport);
  return { client, nulls };
}

describe('"params": null', () => {
  let stack: Stack;

  before(async () => {
    stack = await startStack('null-params');
  });
  after(() => stack?.close());

  it('a client writing null params connects (notifications/initialized), lists tools and pings', async () => {
    const { client, nulls } = await clientWritingNulls(stack);
    try {
      assert.ok((await client.listTools()).tools.some((tool) => tool.name === 'start_skin_scan'));
      assert.deepEqual(await client.ping(), {});
      assert.deepEqual(nulls, ['notifications/initialized', 'tools/list', 'ping']);
    } finally {
      await client.close();
    }
  });

  it('ping and tools/list with params null are answered as without params', async () => {
    assert.deepEqual((await rpc(stack.baseUrl, 'ping', null)).body, { jsonrpc: '2.0', id: 1, result: {} });
    const list = await rpc(stack.baseUrl, 'tools/list', null);
    assert.equal(list.status, 200);
    assert.ok(list.body.result.tools.length > 0);
  });

  it('tools/call with params null still needs a name: -32602 saying so', async () => {
    const { status, body } = await rpc(stack.baseUrl, 'tools/call', null);
    assert.equal(status, 200);
    assert.deepEqual(body.error, {
      code: -32602,
      message: 'Invalid params: tools/call takes a string "name" and an object "arguments".',
    });
  });
});
