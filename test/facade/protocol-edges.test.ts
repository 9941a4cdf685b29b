/**
 * The edges of the MCP transport an independent client runs into: malformed tools/call params, lengths in
 * characters, an oversized body on a keep-alive connection, foreign origins, and the form of nullable
 * output fields.
 */
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { completeScan, RED_ACNE_SCORES, TEST_CATALOG } from '../support/fixtures.ts';
import { callTool, connectSdkClient, errorCode, JSON_RPC_HEADERS, rpc } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

const LIST = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}';

/** One POST on the given agent (so tests choose which connection it travels on). */
function send(stack: Stack, agent: Agent, body: Buffer | string, headers: Record<string, string> = {}) {
  const url = new URL(stack.baseUrl);
  return new Promise<{ status: number; headers: Record<string, unknown>; text: string }>(
    (resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: '/mcp',
          method: 'POST',
          agent,
          headers: { ...JSON_RPC_HEADERS, ...headers },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk) => chunks.push(chunk));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              text: Buffer.concat(chunks).toString(),
            }),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    },
  );
}

describe('MCP protocol edges', () => {
  let stack: Stack;

  before(async () => {
    stack = await startStack('protocol-edges', { products: TEST_CATALOG });
  });
  after(() => stack?.close());

  const malformed: [string, unknown][] = [
    ['no name', { arguments: {} }],
    ['a name that is not a string', { name: 7, arguments: {} }],
    ['arguments an array', { name: 'start_skin_scan', arguments: ['x'] }],
  ];
  for (const [title, params] of malformed) {
    it(`tools/call with ${title} → -32602 with a short message`, async () => {
      const { status, body } = await rpc(stack.baseUrl, 'tools/call', params);
      assert.equal(status, 200);
      assert.equal(body.id, 1);
      assert.equal(body.error.code, -32602);
      assert.equal(
        body.error.message,
        'Invalid params: tools/call takes a string "name" and an object "arguments".',
      );
    });
  }

  describe('a request the SDK would not route is answered at once, never left to time out', () => {
    // Each of these passed the façade's envelope check but failed the SDK's own, which then dropped the
    // message: the HTTP request waited the whole MCP_REQUEST_TIMEOUT_MS for a server-fault answer.
    const post = (message: object) =>
      fetch(`${stack.baseUrl}/mcp`, {
        method: 'POST',
        headers: JSON_RPC_HEADERS,
        body: JSON.stringify(message),
      });
    const cases: [string, object, number, number][] = [
      ['a member JSON-RPC does not define', { method: 'ping', extra: 1 }, 400, -32600],
      ['params._meta not an object', { method: 'tools/list', params: { _meta: 5 } }, 200, -32602],
      [
        'a progressToken that is not an integer',
        { method: 'ping', params: { _meta: { progressToken: 1.5 } } },
        200,
        -32602,
      ],
      [
        'tools/call with params._meta a string',
        { method: 'tools/call', params: { name: 'get_skin_scan', arguments: {}, _meta: 'x' } },
        200,
        -32602,
      ],
      ['params a string', { method: 'tools/call', params: 'x' }, 200, -32602],
      ['params an array', { method: 'tools/list', params: [1] }, 200, -32602],
    ];
    for (const [title, fields, status, code] of cases) {
      it(`${title} → ${code} with the request's id`, async () => {
        const started = performance.now();
        const res = await post({ jsonrpc: '2.0', id: 7, ...fields });
        assert.ok(performance.now() - started < 2000, 'answered at once');
        assert.equal(res.status, status);
        const body = (await res.json()) as any;
        assert.equal(body.id, 7);
        assert.equal(body.error.code, code);
      });
    }

    const invalid: [string, string, object][] = [
      ['initialize without its fields', 'initialize', {}],
      ['tools/list with a numeric cursor', 'tools/list', { cursor: 5 }],
    ];
    for (const [title, method, params] of invalid) {
      it(`${title} → -32602 with a short message, not an internal error`, async () => {
        const { status, body } = await rpc(stack.baseUrl, method, params);
        assert.equal(status, 200);
        assert.equal(body.id, 1);
        assert.equal(body.error.code, -32602);
        assert.match(body.error.message, /^Invalid params: params\.\w+/);
        assert.doesNotMatch(body.error.message, /\n/);
      });
    }
  });

  it('tools/list with a cursor it never gave → -32602 (one page, no nextCursor), not the first page again', async () => {
    const { status, body } = await rpc(stack.baseUrl, 'tools/list', { cursor: 'abc' });
    assert.equal(status, 200);
    assert.equal(body.error.code, -32602);
    assert.match(body.error.message, /^Invalid cursor: .*without a cursor\.$/);
    const listed = await rpc(stack.baseUrl, 'tools/list', {});
    assert.equal(listed.body.result.nextCursor, undefined);
    assert.ok(listed.body.result.tools.length > 0);
  });

  it('an id past the safe integers → -32600 with id null, never an answer under another id', async () => {
    // JSON.parse reads 9007199254740993 as 9007199254740992: echoing it would answer a different id.
    const res = await fetch(`${stack.baseUrl}/mcp`, {
      method: 'POST',
      headers: JSON_RPC_HEADERS,
      body: '{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}',
    });
    assert.equal(res.status, 400);
    const body = (await res.json()) as any;
    assert.equal(body.id, null);
    assert.equal(body.error.code, -32600);
  });

  describe('an argument named "__proto__" is an unknown argument like any other', () => {
    // JSON.parse keeps it as a key, but the SDK's parse of params drops it before the tool's own check.
    const raw = (args: string) =>
      fetch(`${stack.baseUrl}/mcp`, {
        method: 'POST',
        headers: JSON_RPC_HEADERS,
        body: `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_skin_scan","arguments":${args}}}`,
      });
    const token = 'a'.repeat(64);
    const runId = '00000000-0000-4000-8000-000000000000';
    for (const [title, extra] of [
      ['an object', '{"run_id":"x"}'],
      ['null', 'null'],
    ]) {
      it(`"__proto__": ${title} → invalid_input naming it`, async () => {
        const res = await raw(`{"run_id":"${runId}","access_token":"${token}","__proto__":${extra}}`);
        assert.equal(res.status, 200);
        const body = (await res.json()) as any;
        assert.equal(body.id, 3);
        assert.equal(errorCode(body.result), 'invalid_input');
        assert.deepEqual(body.result.structuredContent.error, {
          code: 'invalid_input',
          message: 'Unknown argument "__proto__".',
          field: '__proto__',
        });
      });
    }
  });

  describe('lengths count characters, as the schema does', () => {
    const wide = (n: number) => '𝒜'.repeat(n); // outside the BMP: two UTF-16 units each

    it('source of 100 characters is taken, 101 refused', async () => {
      const taken = await callTool(stack.baseUrl, 'start_skin_scan', { source: wide(100) });
      assert.equal(errorCode(taken), undefined);
      const refused = await callTool(stack.baseUrl, 'start_skin_scan', { source: wide(101) });
      assert.equal(errorCode(refused), 'invalid_input');
      assert.equal(refused.structuredContent.error.field, 'source');
    });

    for (const [field, max] of [
      ['brand', 60],
      ['country', 40],
    ] as const) {
      it(`${field} of ${max} characters is taken, ${max + 1} refused`, async () => {
        const started = await callTool(stack.baseUrl, 'start_skin_scan', { source: 'lengths' });
        const scan = {
          run_id: started.structuredContent.run_id,
          access_token: started.structuredContent.access_token,
        };
        await completeScan(stack.orm, scan.run_id, RED_ACNE_SCORES);
        const taken = await callTool(stack.baseUrl, 'recommend_products', { ...scan, [field]: wide(max) });
        assert.equal(errorCode(taken), undefined, JSON.stringify(taken.structuredContent));
        assert.deepEqual(taken.structuredContent.products, []);
        const refused = await callTool(stack.baseUrl, 'recommend_products', {
          ...scan,
          [field]: wide(max + 1),
        });
        assert.equal(errorCode(refused), 'invalid_input');
        assert.equal(refused.structuredContent.error.field, field);
      });
    }
  });

  describe('a body over the limit', () => {
    it('gets 413, and the next request on the same keep-alive connection is served', async () => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const sockets = new Set();
        agent.on('free', (socket) => sockets.add(socket));
        const big = await send(stack, agent, Buffer.alloc(2 * 1024 * 1024, 0x20));
        assert.equal(big.status, 413);
        assert.equal(JSON.parse(big.text).error.code, -32600);
        assert.notEqual(big.headers.connection, 'close');
        const next = await send(stack, agent, LIST);
        assert.equal(next.status, 200, next.text);
        assert.ok(JSON.parse(next.text).result.tools.length > 0);
        assert.equal(sockets.size, 1, 'both requests travelled on one connection');
      } finally {
        agent.destroy();
      }
    });

    it('past the drain budget, the 413 closes the connection and the next request gets a new one', async () => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const huge = await send(stack, agent, Buffer.alloc(6 * 1024 * 1024, 0x20)).catch((err) => err);
        if (!(huge instanceof Error)) {
          assert.equal(huge.status, 413);
          assert.equal(huge.headers.connection, 'close');
        } else {
          assert.equal((huge as NodeJS.ErrnoException).code, 'ECONNRESET');
        }
        const next = await send(stack, agent, LIST);
        assert.equal(next.status, 200, next.text);
      } finally {
        agent.destroy();
      }
    });
  });

  describe('Origin', () => {
    const post = (origin?: string) =>
      fetch(`${stack.baseUrl}/mcp`, {
        method: 'POST',
        headers: { ...JSON_RPC_HEADERS, ...(origin === undefined ? {} : { origin }) },
        body: LIST,
      });

    for (const origin of ['http://evil.example', 'https://evil.example:443', 'null', 'file://']) {
      it(`a foreign origin (${origin}) → 403`, async () => {
        const res = await post(origin);
        assert.equal(res.status, 403);
        assert.equal(((await res.json()) as any).error.message, 'Origin not allowed.');
      });
    }

    it('the service’s own origin, or none (not a browser), is served', async () => {
      assert.equal((await post(stack.baseUrl)).status, 200);
      assert.equal((await post()).status, 200);
    });
  });

  it('a tool call asking to run as a task is invalid params (-32602), not an internal error; the match allowance stays', async () => {
    const started = await callTool(stack.baseUrl, 'start_skin_scan', { source: 'task' });
    const scan = {
      run_id: started.structuredContent.run_id,
      access_token: started.structuredContent.access_token,
    };
    await completeScan(stack.orm, scan.run_id, RED_ACNE_SCORES);
    const { body } = await rpc(stack.baseUrl, 'tools/call', {
      name: 'recommend_products',
      arguments: scan,
      task: { ttl: 60000 },
    });
    assert.equal(body.error.code, -32602);
    assert.match(body.error.message, /task/);
    const matched = await callTool(stack.baseUrl, 'recommend_products', scan);
    assert.equal(matched.structuredContent.entitlement.upgrade_required, false);
    assert.ok(matched.structuredContent.products.length > 0);
  });

  it('an endpoint URL pasted with a trailing slash is the same endpoint', async () => {
    const client = await connectSdkClient(stack.baseUrl, '/mcp/');
    try {
      const { tools } = await client.listTools();
      assert.ok(tools.some((tool) => tool.name === 'start_skin_scan'));
    } finally {
      await client.close();
    }
    const account = await rpc(stack.baseUrl, 'tools/list', undefined, '/mcp/account/');
    assert.equal(account.status, 401);
    const doubled = await fetch(new URL('/mcp//', stack.baseUrl), {
      method: 'POST',
      headers: JSON_RPC_HEADERS,
      body: LIST,
    });
    assert.equal(doubled.status, 404);
    // Only a slash: another last character is another path (it named the endpoint without it).
    for (const path of ['/mcpx', '/mcp!', '/mcp/accounts', '/mcp/account!']) {
      const other = await fetch(new URL(path, stack.baseUrl), {
        method: 'POST',
        headers: JSON_RPC_HEADERS,
        body: LIST,
      });
      assert.equal(other.status, 404, path);
    }
  });

  it('nullable output fields are written as anyOf, never as a type array', async () => {
    const { body } = await rpc(stack.baseUrl, 'tools/list');
    const typeArrays: string[] = [];
    let nullables = 0;
    const walk = (node: unknown, path: string) => {
      if (Array.isArray(node)) {
        for (const [i, item] of node.entries()) walk(item, `${path}[${i}]`);
        return;
      }
      if (typeof node !== 'object' || node === null) return;
      const schema = node as Record<string, unknown>;
      if (Array.isArray(schema.type)) typeArrays.push(path);
      if (Array.isArray(schema.anyOf) && schema.anyOf.some((s: any) => s.type === 'null')) nullables++;
      for (const [key, value] of Object.entries(schema)) walk(value, `${path}.${key}`);
    };
    for (const tool of body.result.tools) walk(tool, tool.name);
    assert.deepEqual(typeArrays, []);
    assert.ok(nullables >= 12, `${nullables} nullable fields as anyOf`);
  });
});
