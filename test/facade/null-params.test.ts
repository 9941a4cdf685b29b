/**
 * `"params": null`, and a member of params that is null, are absent: clients write an absent member as null
 * (a Rust client serialising `None`, a typed record written with its nulls), and the Python SDK's servers
 * take it. A null inside a tool's arguments is still the tool's to refuse; other params that are not an
 * object stay -32602 (protocol-edges.test.ts).
 */
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { callTool, errorCode, rpc } from '../support/mcp.ts';
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

describe('null params and null members of params', () => {
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

  it('tools/list with "cursor": null is the first page; _meta null is no _meta', async () => {
    const list = await rpc(stack.baseUrl, 'tools/list', { cursor: null, _meta: null });
    assert.equal(list.status, 200);
    assert.ok(list.body.result.tools.length > 0);
    assert.deepEqual((await rpc(stack.baseUrl, 'ping', { _meta: null })).body.result, {});
  });

  it('initialize with null capabilities and a null title is negotiated', async () => {
    const { status, body } = await rpc(stack.baseUrl, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: { roots: null, sampling: null, elicitation: { form: null }, experimental: null },
      clientInfo: { name: 'typed-client', version: '1', title: null },
      _meta: null,
    });
    assert.equal(status, 200);
    assert.equal(body.result.protocolVersion, '2025-06-18');
  });

  it('tools/call with "arguments": null is a call without arguments: the tool says what is missing', async () => {
    const result = await callTool(stack.baseUrl, 'get_skin_scan', null);
    assert.equal(errorCode(result), 'scan_required');
  });

  it('a null inside arguments is kept: an unknown argument set to null is still refused by name', async () => {
    const result = await callTool(stack.baseUrl, 'start_skin_scan', { source: 'nulls', extra: null });
    assert.equal(errorCode(result), 'invalid_input');
    assert.equal(result.structuredContent.error.field, 'extra');
  });
});
