/**
 * JSON-RPC batches as the MCP versions have them: MCP 2025-03-26 (and before) servers must take a batch,
 * and a client sending no MCP-Protocol-Version is taken to speak 2025-03-26; 2025-06-18 removed batches.
 * Each message of a batch is answered as if sent alone and spends its own point of the request budget.
 */
import assert from 'node:assert/strict';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { MAX_BATCH } from '../../facade/mcp/endpoint.ts';
import { postMessage } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

const LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
const PING = { jsonrpc: '2.0', id: 'b', method: 'ping' };
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };

const post = (stack: Stack, body: unknown, headers: Record<string, string> = {}) =>
  postMessage(stack.baseUrl, body, headers);

/** The answers of a batch by id (their order is free). */
function byId(answers: { id: unknown }[]): Map<unknown, any> {
  return new Map(answers.map((answer) => [answer.id, answer]));
}

describe('JSON-RPC batches', () => {
  let stack: Stack;

  before(async () => {
    stack = await startStack('batches');
  });
  after(() => stack?.close());

  for (const [title, headers] of [
    ['no MCP-Protocol-Version (2025-03-26 assumed)', {}],
    ['MCP-Protocol-Version 2025-03-26', { 'mcp-protocol-version': '2025-03-26' }],
    ['MCP-Protocol-Version 2024-11-05', { 'mcp-protocol-version': '2024-11-05' }],
  ] as const) {
    it(`${title}: each request answered in one array, the notification not`, async () => {
      const { status, body } = await post(stack, [LIST, PING, INITIALIZED], headers);
      assert.equal(status, 200);
      assert.equal(body.length, 2);
      const answers = byId(body);
      assert.ok(answers.get(1).result.tools.some((tool: any) => tool.name === 'start_skin_scan'));
      assert.deepEqual(answers.get('b'), { jsonrpc: '2.0', id: 'b', result: {} });
    });
  }

  it('tool calls in a batch: each its own result, tool errors included', async () => {
    const started = { jsonrpc: '2.0', id: 1, method: 'tools/call' };
    const { status, body } = await post(stack, [
      { ...started, params: { name: 'start_skin_scan', arguments: { source: 'batch' } } },
      { ...started, id: 2, params: { name: 'get_skin_scan', arguments: {} } },
    ]);
    assert.equal(status, 200);
    const answers = byId(body);
    assert.equal(answers.get(1).result.structuredContent.status, 'awaiting_upload');
    assert.equal(answers.get(2).result.structuredContent.error.code, 'scan_required');
  });

  it('notifications and responses only → 202 with no body', async () => {
    const response = { jsonrpc: '2.0', id: 5, result: {} };
    const { status, text } = await post(stack, [INITIALIZED, response]);
    assert.equal(status, 202);
    assert.equal(text, '');
  });

  it('a message that is not a request is an error in its place; the others are answered', async () => {
    const { status, body } = await post(stack, [7, { jsonrpc: '2.0', id: 3, method: 'no/such' }, PING]);
    assert.equal(status, 200);
    assert.equal(body.length, 3);
    const invalid = body.find((answer: any) => answer.id === null);
    assert.equal(invalid.error.code, -32600);
    assert.equal(byId(body).get(3).error.code, -32601);
    assert.deepEqual(byId(body).get('b').result, {});
  });

  it('a client taking only text/event-stream gets each answer as its own SSE message event', async () => {
    const { status, headers, text } = await post(stack, [LIST, PING], { accept: 'text/event-stream' });
    assert.equal(status, 200);
    assert.equal(headers.get('content-type'), 'text/event-stream');
    const events = text.split('\n\n').filter(Boolean);
    assert.equal(events.length, 2);
    const ids = events.map((event) => JSON.parse(event.replace(/^event: message\ndata: /, '')).id);
    assert.deepEqual(ids.sort(), [1, 'b']);
  });

  it("the SDK client transport's batch (2025-03-26) gets every answer", async () => {
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', stack.baseUrl));
    const received: JSONRPCMessage[] = [];
    transport.onmessage = (message) => received.push(message);
    await transport.start();
    transport.setProtocolVersion('2025-03-26');
    try {
      await transport.send([LIST, PING] as JSONRPCMessage[]);
      assert.deepEqual(received.map((message) => (message as { id: unknown }).id).sort(), [1, 'b']);
    } finally {
      await transport.close();
    }
  });

  for (const version of ['2025-06-18', '2025-11-25']) {
    it(`MCP-Protocol-Version ${version}: a batch → 400, -32600, send each request alone`, async () => {
      const { status, body } = await post(stack, [LIST], { 'mcp-protocol-version': version });
      assert.equal(status, 400);
      assert.deepEqual(body, {
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message: `Invalid Request: MCP ${version} has no batches; send each request in its own POST.`,
        },
      });
    });
  }

  it(`a batch of ${MAX_BATCH} requests: answered with no process warning (no listener per message)`, async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    try {
      const batch = Array.from({ length: MAX_BATCH }, (_, i) => ({ ...PING, id: i }));
      const { status, body } = await post(stack, batch);
      assert.equal(status, 200);
      assert.equal(body.length, MAX_BATCH);
      await new Promise(setImmediate); // a warning is emitted on the next tick
      assert.deepEqual(warnings, []);
    } finally {
      process.off('warning', onWarning);
    }
  });

  const refused: [string, unknown[], string][] = [
    ['an empty batch', [], 'Invalid Request: the batch is empty.'],
    [
      `a batch of ${MAX_BATCH + 1}`,
      Array.from({ length: MAX_BATCH + 1 }, (_, i) => ({ ...PING, id: i })),
      `Invalid Request: a batch holds at most ${MAX_BATCH} messages.`,
    ],
    [
      'initialize in a batch',
      [
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-03-26',
            capabilities: {},
            clientInfo: { name: 'x', version: '1' },
          },
        },
        PING,
      ],
      'Invalid Request: initialize must not be part of a batch; send it on its own.',
    ],
  ];
  for (const [title, batch, message] of refused) {
    it(`${title} → 400, -32600`, async () => {
      const { status, body } = await post(stack, batch);
      assert.equal(status, 400);
      assert.deepEqual(body.error, { code: -32600, message });
    });
  }
});

describe('JSON-RPC batches and the request budget', () => {
  let stack: Stack;

  before(async () => {
    stack = await startStack('batches-budget', {
      limits: { requestsPerMinute: 3, callsPerMinute: 1000, scansPerHour: 1000 },
    });
  });
  after(() => stack?.close());

  it('each message spends a point: past the budget, its place holds the rate_limited error', async () => {
    const batch = Array.from({ length: 5 }, (_, i) => ({ ...PING, id: i }));
    const { status, headers, body } = await post(stack, batch);
    assert.equal(status, 200);
    const codes = body.map((answer: any) => answer.error?.code ?? 'ok').sort();
    assert.deepEqual(codes, [-32029, -32029, 'ok', 'ok', 'ok']);
    assert.ok(Number(headers.get('retry-after')) > 0);
  });
});
