/**
 * The spec: "The server is stateless. No initialization handshake and no session header are needed." No
 * answer hands out an `Mcp-Session-Id` (a client given one would have to send it back, and a replica that
 * never saw it would refuse it), the SDK client connects without one, and a request carrying one (a client
 * that kept one from another server, or a replayed one) is served as any other, on both endpoints.
 */
import assert from 'node:assert/strict';
import { createAccount, mintToken } from '../support/bearer.ts';
import { connectSdkClient, JSON_RPC_HEADERS } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'stateless', version: '1' },
  },
};

describe('stateless endpoints: no session header given, none needed', () => {
  let stack: Stack;
  let bearer: string;
  const post = (path: string, body: object, headers: Record<string, string> = {}) =>
    fetch(`${stack.baseUrl}${path}`, {
      method: 'POST',
      headers: { ...JSON_RPC_HEADERS, ...headers },
      body: JSON.stringify(body),
    });

  before(async () => {
    stack = await startStack('stateless');
    bearer = `Bearer ${await mintToken(stack, await createAccount(stack.coreUrl, 'stateless'))}`;
  });
  after(() => stack?.close());

  for (const path of ['/mcp', '/mcp/account']) {
    const auth = (): Record<string, string> => (path === '/mcp' ? {} : { authorization: bearer });

    it(`${path}: initialize answers without Mcp-Session-Id`, async () => {
      const res = await post(path, INITIALIZE, auth());
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('mcp-session-id'), null);
      assert.equal(((await res.json()) as any).result.protocolVersion, '2025-06-18');
    });

    it(`${path}: a request carrying a session id never given is served as any other`, async () => {
      const headers = { ...auth(), 'mcp-session-id': 'a-session-this-server-never-gave' };
      const listed = await post(path, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, headers);
      assert.equal(listed.status, 200);
      assert.equal(listed.headers.get('mcp-session-id'), null);
      assert.ok(((await listed.json()) as any).result.tools.length > 0);
      const call = { name: 'start_skin_scan', arguments: { source: 'stateless' } };
      const started = await post(
        path,
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: call },
        headers,
      );
      assert.equal(started.status, 200);
      const { result } = (await started.json()) as any;
      assert.equal(result.isError, undefined, JSON.stringify(result));
      assert.match(result.structuredContent.access_token, /^[a-f0-9]{64}$/);
    });
  }

  it('the SDK client holds no session id once connected, and calls tools', async () => {
    const client = await connectSdkClient(stack.baseUrl);
    try {
      const transport = client.transport as { sessionId?: string } | undefined;
      assert.equal(transport?.sessionId, undefined);
      const { tools } = await client.listTools();
      assert.ok(tools.some((tool) => tool.name === 'start_skin_scan'));
    } finally {
      await client.close();
    }
  });
});
