/**
 * What real MCP clients send beyond the SDK's defaults, answered so that they can work or correct the
 * call: Accept headers other than `application/json, text/event-stream` (JSON only, wildcards, other
 * case, none, or only `text/event-stream`, which gets the answer as one SSE event), an unknown tool or
 * argument, a NUL character in a filter argument; and the catalog tools' nullable output fields.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { TEST_CATALOG } from '../support/fixtures.ts';
import { twoEndpoints } from '../support/two-endpoints.ts';

const LIST = '{"jsonrpc":"2.0","id":"list-1","method":"tools/list"}';

/** One POST to /mcp by node:http, which sends only the headers given (fetch adds an Accept of its own). */
function post(baseUrl: string, body: string, headers: Record<string, string>) {
  const url = new URL('/mcp', baseUrl);
  return new Promise<{ status: number; type: string; text: string }>((resolve, reject) => {
    const req = request(url, { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          type: String(res.headers['content-type'] ?? ''),
          text: Buffer.concat(chunks).toString(),
        }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** An SDK client whose every request carries `accept` instead of the SDK's own Accept header. */
async function clientSending(baseUrl: string, accept: string): Promise<Client> {
  const client = new Client({ name: 'accept-probe', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), {
    fetch: (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('accept', accept);
      return fetch(input, { ...init, headers });
    },
  });
  await client.connect(transport);
  return client;
}

describe('MCP clients beyond the SDK defaults', () => {
  const ends = twoEndpoints('client-compat', { products: TEST_CATALOG });
  const json = { 'content-type': 'application/json' };

  describe('Accept', () => {
    const takesJson: [string, Record<string, string>][] = [
      ['only application/json', { accept: 'application/json' }],
      ['any type', { accept: '*/*' }],
      ['any application type', { accept: 'application/*' }],
      ['upper case', { accept: 'Application/JSON, Text/Event-Stream' }],
      ['no Accept at all', {}],
    ];
    for (const [title, accept] of takesJson) {
      it(`${title} → 200 with the JSON answer`, async () => {
        const res = await post(ends.stack.baseUrl, LIST, { ...json, ...accept });
        assert.equal(res.status, 200, res.text);
        assert.match(res.type, /^application\/json/);
        const answer = JSON.parse(res.text);
        assert.equal(answer.id, 'list-1');
        assert.ok(answer.result.tools.some((t: { name: string }) => t.name === 'start_skin_scan'));
      });
    }

    it('only text/event-stream → 200 with the answer as one SSE message event', async () => {
      const res = await post(ends.stack.baseUrl, LIST, { ...json, accept: 'text/event-stream' });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.type, 'text/event-stream');
      const match = /^event: message\ndata: (.+)\n\n$/.exec(res.text);
      assert.ok(match, res.text);
      const answer = JSON.parse(match[1]!);
      assert.equal(answer.id, 'list-1');
      assert.ok(answer.result.tools.length > 0);
    });

    for (const accept of ['text/html', 'application/json;q=0, text/html']) {
      it(`an Accept admitting neither JSON nor SSE (${accept}) → 406 saying what to send`, async () => {
        const res = await post(ends.stack.baseUrl, LIST, { ...json, accept });
        assert.equal(res.status, 406);
        const answer = JSON.parse(res.text);
        assert.equal(answer.error.code, -32000);
        assert.equal(
          answer.error.message,
          'Accept must admit application/json (or text/event-stream): the answer is JSON.',
        );
      });
    }

    for (const accept of ['application/json', 'text/event-stream']) {
      it(`the SDK client sending only ${accept} connects, lists and calls tools`, async () => {
        const client = await clientSending(ends.stack.baseUrl, accept);
        try {
          assert.ok((await client.listTools()).tools.length > 0);
          const started = await client.callTool({ name: 'start_skin_scan', arguments: { source: 'probe' } });
          assert.equal(started.isError, undefined);
          assert.match(String((started.structuredContent as { run_id: string }).run_id), /^[0-9a-f-]{36}$/);
        } finally {
          await client.close();
        }
      });
    }
  });

  it('an unknown tool → -32602 naming the tools there are, the name clipped, no "MCP error" prefix', async () => {
    const call = (name: string) =>
      post(
        ends.stack.baseUrl,
        JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name, arguments: {} } }),
        { ...json, accept: 'application/json, text/event-stream' },
      );
    const res = await call('diagnose_skin');
    assert.equal(res.status, 200);
    const { error } = JSON.parse(res.text);
    assert.equal(error.code, -32602);
    assert.equal(
      error.message,
      'Unknown tool: "diagnose_skin". The tools of this endpoint: start_skin_scan, get_skin_scan, ' +
        'delete_skin_scan, recommend_products.',
    );
    // A tool of /mcp/account only: the answer says where it is.
    const accountOnly = JSON.parse((await call('delete_my_service_data')).text).error;
    assert.equal(accountOnly.code, -32602);
    assert.equal(
      accountOnly.message,
      'Unknown tool: "delete_my_service_data". It is served on /mcp/account, after the person signs in ' +
        '(OAuth). The tools of this endpoint: start_skin_scan, get_skin_scan, delete_skin_scan, ' +
        'recommend_products.',
    );
    const long = JSON.parse((await call('x'.repeat(50_000))).text).error;
    assert.equal(long.code, -32602);
    assert.ok(long.message.length < 300, `${long.message.length} characters`);
  });

  for (const field of ['brand', 'country']) {
    it(`recommend_products with a NUL in ${field} → invalid_input naming ${field}, not core's "filter"`, async () => {
      const result = await ends.guest.callTool({
        name: 'recommend_products',
        arguments: {
          run_id: '00000000-0000-4000-8000-000000000000',
          access_token: 'a'.repeat(64),
          [field]: 'Brand\u0000',
        },
      });
      assert.equal(result.isError, true);
      const { error } = result.structuredContent as { error: Record<string, unknown> };
      assert.deepEqual(error, {
        code: 'invalid_input',
        message: `Argument "${field}" must not contain the NUL character (U+0000).`,
        field,
      });
    });
  }

  it('an unknown argument → invalid_input naming it and the arguments the tool takes', async () => {
    const extra = await ends.guest.callTool({
      name: 'get_skin_scan',
      arguments: { run_id: '00000000-0000-4000-8000-000000000000', access_token: 'a'.repeat(64), limit: 5 },
    });
    assert.equal(extra.isError, true);
    assert.deepEqual((extra.structuredContent as { error: unknown }).error, {
      code: 'invalid_input',
      message: 'Unknown argument "limit". The arguments are: run_id, access_token.',
      field: 'limit',
    });
    const none = await ends.account.callTool({
      name: 'delete_my_service_data',
      arguments: { confirm: true },
    });
    assert.deepEqual((none.structuredContent as { error: unknown }).error, {
      code: 'invalid_input',
      message: 'Unknown argument "confirm". This tool takes no arguments.',
      field: 'confirm',
    });
  });

  it('a value outside an enumeration → invalid_input listing the values allowed', async () => {
    const identity = { run_id: '00000000-0000-4000-8000-000000000000', access_token: 'a'.repeat(64) };
    const error = async (args: Record<string, unknown>) =>
      (
        (await ends.guest.callTool({ name: 'recommend_products', arguments: { ...identity, ...args } }))
          .structuredContent as { error: unknown }
      ).error;
    assert.deepEqual(await error({ product_type: 'cream' }), {
      code: 'invalid_input',
      message:
        'Argument "product_type" must be one of: cleanser, toner, serum, moisturizer, sunscreen, eye_care, ' +
        'exfoliator, mask, treatment.',
      field: 'product_type',
    });
    assert.deepEqual(await error({ free_from: ['fragrance', 'parabens'] }), {
      code: 'invalid_input',
      message: 'Argument "free_from.1" must be one of: fragrance, alcohol, fungal_acne_triggers.',
      field: 'free_from.1',
    });
  });

  it('a POST without a body (no Content-Length), Content-Type right → -32700 "the body is empty", not 415', async () => {
    // As curl -X POST sends it without -d: no Content-Length, no Transfer-Encoding.
    const url = new URL(ends.stack.baseUrl);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.end(
          `POST /mcp HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\n` +
            'Accept: application/json, text/event-stream\r\nConnection: close\r\n\r\n',
        );
      });
      const chunks: Buffer[] = [];
      socket.on('data', (chunk) => chunks.push(chunk));
      socket.on('end', () => resolve(Buffer.concat(chunks).toString()));
      socket.on('error', reject);
    });
    assert.match(answer, /^HTTP\/1\.1 400 /);
    const { error } = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    assert.deepEqual(error, { code: -32700, message: 'Parse error: the body is empty.' });
  });

  it('/mcp/account: nullable output fields are anyOf, never a type array (catalog tools too)', async () => {
    const { tools } = await ends.account.listTools();
    const typeArrays: string[] = [];
    const walk = (node: unknown, path: string) => {
      if (typeof node !== 'object' || node === null) return;
      if (!Array.isArray(node) && Array.isArray((node as { type?: unknown }).type)) typeArrays.push(path);
      for (const [key, value] of Object.entries(node)) walk(value, `${path}.${key}`);
    };
    for (const tool of tools) walk(tool.outputSchema, tool.name);
    assert.deepEqual(typeArrays, []);
    const product = await ends.account.callTool({ name: 'search_products', arguments: { page_size: 3 } });
    assert.equal(product.isError, undefined); // and the SDK client validated it against the listed schema
  });
});
