/**
 * MCP protocol versions as clients of every version meet them: the MCP-Protocol-Version header names the
 * version agreed at initialize, so an initialize is negotiated whatever header it carries (the MCP SDK's
 * servers skip the check there), and a later request with a version this server does not speak is 400
 * naming the versions it does.
 */
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { postMessage } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

/** A version no server of today speaks, as a client of a later MCP would send it. */
const FUTURE = '2031-01-01';

const post = (stack: Stack, body: unknown, headers: Record<string, string> = {}) =>
  postMessage(stack.baseUrl, body, headers);

describe('MCP protocol versions', () => {
  let stack: Stack;

  before(async () => {
    stack = await startStack('protocol-versions');
  });
  after(() => stack?.close());

  it('an initialize carrying a later version in MCP-Protocol-Version is negotiated, not refused', async () => {
    const { status, body } = await post(
      stack,
      {
        jsonrpc: '2.0',
        id: 'init',
        method: 'initialize',
        params: { protocolVersion: FUTURE, capabilities: {}, clientInfo: { name: 'later', version: '1' } },
      },
      { 'mcp-protocol-version': FUTURE },
    );
    assert.equal(status, 200);
    assert.equal(body.id, 'init');
    assert.equal(body.result.protocolVersion, LATEST_PROTOCOL_VERSION);
  });

  it('the SDK client whose every request carries a later version until it learns ours connects and lists', async () => {
    const client = new Client({ name: 'later-client', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', stack.baseUrl), {
      fetch: (input, init) => {
        const headers = new Headers(init?.headers);
        if (!headers.has('mcp-protocol-version')) headers.set('mcp-protocol-version', FUTURE);
        return fetch(input, { ...init, headers });
      },
    });
    await client.connect(transport);
    try {
      assert.equal(transport.protocolVersion, LATEST_PROTOCOL_VERSION);
      assert.ok((await client.listTools()).tools.some((tool) => tool.name === 'start_skin_scan'));
    } finally {
      await client.close();
    }
  });

  it('any other request with a version not spoken → 400, -32000, its id, and the versions there are', async () => {
    const { status, body } = await post(
      stack,
      { jsonrpc: '2.0', id: 7, method: 'tools/list' },
      { 'mcp-protocol-version': FUTURE },
    );
    assert.equal(status, 400);
    assert.equal(body.id, 7);
    assert.equal(body.error.code, -32000);
    assert.equal(
      body.error.message,
      `Unsupported MCP-Protocol-Version: ${FUTURE} (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}).`,
    );
    const notification = await post(
      stack,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { 'mcp-protocol-version': FUTURE },
    );
    assert.equal(notification.status, 400);
    assert.equal(notification.body.id, null);
  });

  for (const version of SUPPORTED_PROTOCOL_VERSIONS) {
    it(`initialize asking ${version} gets ${version}; later requests with that header are served`, async () => {
      const init = await post(stack, {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'v', version: '1' } },
      });
      assert.equal(init.body.result.protocolVersion, version);
      const list = await post(
        stack,
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
        { 'mcp-protocol-version': version },
      );
      assert.equal(list.status, 200);
      assert.ok(list.body.result.tools.length > 0);
    });
  }
});
