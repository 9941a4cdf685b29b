import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { TEST_CATALOG } from '../support/fixtures.ts';
import { callTool, errorCode, JSON_RPC_HEADERS, rpc } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

const run = promisify(execFile);
const UNKNOWN_ID = '0b7c6f3e-2a51-4c1e-9d2f-6f1e2d3c4b5a';

describe('tool errors and HTTP behaviour of /mcp', () => {
  let stack: Stack;
  let identity: { run_id: string; access_token: string };

  before(async () => {
    stack = await startStack('errors', { products: TEST_CATALOG });
    const started = await callTool(stack.baseUrl, 'start_skin_scan', { source: 'errors' });
    identity = {
      run_id: started.structuredContent.run_id,
      access_token: started.structuredContent.access_token,
    };
  });
  after(() => stack?.close());

  it('answers tools/call by plain fetch without initialize', async () => {
    const result = await callTool(stack.baseUrl, 'get_skin_scan', identity);
    assert.equal(result.isError, undefined);
    assert.equal(result.structuredContent.status, 'awaiting_upload');
  });

  describe('not_found, one answer for every way a scan is out of reach', () => {
    const message = async (args: object) => {
      const result = await callTool(stack.baseUrl, 'get_skin_scan', args);
      assert.equal(errorCode(result), 'not_found');
      return result.structuredContent.error.message;
    };

    it('wrong token and unknown id give the same code and message', async () => {
      const wrongToken = await message({ ...identity, access_token: 'f'.repeat(64) });
      const unknownId = await message({ ...identity, run_id: UNKNOWN_ID });
      assert.equal(wrongToken, unknownId);
    });

    it('an expired token (seven days after issue) is not_found', async () => {
      const fresh = await callTool(stack.baseUrl, 'start_skin_scan', { source: 'expiry' });
      const args = {
        run_id: fresh.structuredContent.run_id,
        access_token: fresh.structuredContent.access_token,
      };
      stack.clock.offsetMs = 7 * 24 * 3600 * 1000 - 60_000;
      assert.equal(errorCode(await callTool(stack.baseUrl, 'get_skin_scan', args)), undefined);
      stack.clock.offsetMs = 7 * 24 * 3600 * 1000 + 1000;
      try {
        await message(args);
      } finally {
        stack.clock.offsetMs = 0;
      }
    });

    it('a deleted scan is not_found, and so is deleting it again', async () => {
      const fresh = await callTool(stack.baseUrl, 'start_skin_scan', { source: 'delete' });
      const args = {
        run_id: fresh.structuredContent.run_id,
        access_token: fresh.structuredContent.access_token,
      };
      assert.equal(errorCode(await callTool(stack.baseUrl, 'delete_skin_scan', args)), undefined);
      await message(args);
      assert.equal(errorCode(await callTool(stack.baseUrl, 'delete_skin_scan', args)), 'not_found');
    });
  });

  describe('invalid_input and scan_required', () => {
    const cases: [string, string, object, string, string | undefined][] = [
      ['unknown key', 'get_skin_scan', { extra: 1 }, 'invalid_input', 'extra'],
      ['bad UUID', 'get_skin_scan', { run_id: 'not-a-uuid' }, 'invalid_input', 'run_id'],
      ['uppercase token', 'get_skin_scan', { access_token: 'A'.repeat(64) }, 'invalid_input', 'access_token'],
      ['short token', 'delete_skin_scan', { access_token: 'a'.repeat(63) }, 'invalid_input', 'access_token'],
      ['token of wrong type', 'get_skin_scan', { access_token: 42 }, 'invalid_input', 'access_token'],
      ['missing run_id', 'get_skin_scan', { run_id: undefined }, 'scan_required', undefined],
      ['missing run_id on delete', 'delete_skin_scan', { run_id: undefined }, 'scan_required', undefined],
    ];
    for (const [title, tool, change, code, field] of cases) {
      it(`${title} → ${code}`, async () => {
        const result = await callTool(stack.baseUrl, tool, { ...identity, ...change });
        assert.equal(errorCode(result), code);
        assert.equal(result.structuredContent.error.field, field);
        assert.doesNotMatch(result.content[0]!.text, new RegExp(identity.access_token));
      });
    }

    const sources: [string, unknown][] = [
      ['empty source', ''],
      ['blank source', '   '],
      ['source over 100 characters', 'x'.repeat(101)],
      // The schema bounds the text as sent; core's trimming comes after it (docs/design-notes.md, Input).
      ['100 characters and a trailing newline', `${'x'.repeat(100)}\n`],
      ['source of wrong type', 7],
    ];
    for (const [title, source] of sources) {
      it(`${title} → invalid_input`, async () => {
        const result = await callTool(stack.baseUrl, 'start_skin_scan', { source });
        assert.equal(errorCode(result), 'invalid_input');
        assert.equal(result.structuredContent.error.field, 'source');
      });
    }

    it('missing source → invalid_input', async () => {
      const result = await callTool(stack.baseUrl, 'start_skin_scan', {});
      assert.equal(errorCode(result), 'invalid_input');
      assert.equal(result.structuredContent.error.field, 'source');
    });
  });

  it('admissions_paused refuses new scans while get and delete keep working', async function () {
    // The admin script runs twice, a process each: a loaded machine (CI, load 7-10) starts each in seconds.
    this.timeout(120_000);
    const fresh = await callTool(stack.baseUrl, 'start_skin_scan', { source: 'paused' });
    const args = {
      run_id: fresh.structuredContent.run_id,
      access_token: fresh.structuredContent.access_token,
    };
    // The operator's command, as documented in the README, against this test's database.
    const admin = (state: string) =>
      run(process.execPath, ['scripts/admin.ts', 'admissions', state], {
        env: { ...process.env, DATABASE_URL: stack.databaseUrl },
      });
    assert.equal((await admin('off')).stdout, 'admissions off\n');
    try {
      assert.equal(
        errorCode(await callTool(stack.baseUrl, 'start_skin_scan', { source: 'x' })),
        'admissions_paused',
      );
      const health = (await (await fetch(`${stack.baseUrl}/health`)).json()) as any;
      assert.equal(health.admissions_enabled, false);
      assert.equal(errorCode(await callTool(stack.baseUrl, 'get_skin_scan', args)), undefined);
      assert.equal(errorCode(await callTool(stack.baseUrl, 'delete_skin_scan', args)), undefined);
    } finally {
      assert.equal((await admin('on')).stdout, 'admissions on\n');
    }
    assert.equal(errorCode(await callTool(stack.baseUrl, 'start_skin_scan', { source: 'x' })), undefined);
  });

  describe('HTTP', () => {
    const post = (body: string, headers: Record<string, string> = JSON_RPC_HEADERS) =>
      fetch(`${stack.baseUrl}/mcp`, { method: 'POST', headers, body });

    it('invalid JSON → JSON-RPC -32700 with no stack trace', async () => {
      const res = await post('{"jsonrpc": "2.0", "id": 1, "method": ');
      assert.equal(res.status, 400);
      const body = (await res.json()) as any;
      assert.equal(body.error.code, -32700);
      assert.doesNotMatch(JSON.stringify(body), /at .*\.ts/);
    });

    it('not a JSON-RPC request → -32600', async () => {
      const res = await post('{"hello": "world"}');
      assert.equal(res.status, 400);
      assert.equal(((await res.json()) as any).error.code, -32600);
    });

    it('an unsupported MCP-Protocol-Version → 400; a supported one is served', async () => {
      const body = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}';
      const old = await post(body, { ...JSON_RPC_HEADERS, 'mcp-protocol-version': '1999-01-01' });
      assert.equal(old.status, 400);
      assert.match(((await old.json()) as any).error.message, /Unsupported MCP-Protocol-Version/);
      assert.equal(
        (await post(body, { ...JSON_RPC_HEADERS, 'mcp-protocol-version': '2025-06-18' })).status,
        200,
      );
    });

    it('an unknown tool → JSON-RPC -32602', async () => {
      const { status, body } = await rpc(stack.baseUrl, 'tools/call', {
        name: 'diagnose_skin',
        arguments: {},
      });
      assert.equal(status, 200);
      assert.equal(body.error.code, -32602);
      assert.match(body.error.message, /^Unknown tool: "diagnose_skin"\./);
    });

    it('unknown method → JSON-RPC -32601', async () => {
      const { status, body } = await rpc(stack.baseUrl, 'resources/nope');
      assert.equal(status, 200);
      assert.equal(body.error.code, -32601);
    });

    it('a method named like an object member → -32601 with the request id, not HTTP 500', async () => {
      for (const method of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
        const { status, body } = await rpc(stack.baseUrl, method);
        assert.equal(status, 200, method);
        assert.deepEqual(body, {
          jsonrpc: '2.0',
          id: 1,
          error: { code: -32601, message: 'Method not found' },
        });
      }
    });

    for (const method of ['GET', 'DELETE']) {
      it(`${method} /mcp → 405`, async () => {
        const res = await fetch(`${stack.baseUrl}/mcp`, { method, headers: { accept: 'text/event-stream' } });
        assert.equal(res.status, 405);
        assert.equal(res.headers.get('allow'), 'POST');
      });
    }

    it('a body over 1 MiB → 413', async () => {
      const big = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { pad: 'x'.repeat(1024 * 1024) },
      });
      const res = await post(big);
      assert.equal(res.status, 413);
    });

    it('a Host header not configured → 403 on /mcp (DNS-rebinding protection), /health still answers', async () => {
      const { request } = await import('node:http');
      const url = new URL(stack.baseUrl);
      const send = (method: string, path: string) =>
        new Promise<number>((resolve, reject) => {
          const req = request(
            {
              host: url.hostname,
              port: url.port,
              path,
              method,
              headers: { ...JSON_RPC_HEADERS, host: 'evil.example:80' },
            },
            (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            },
          );
          req.on('error', reject);
          req.end(method === 'POST' ? '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' : undefined);
        });
      assert.equal(await send('POST', '/mcp'), 403);
      assert.equal(await send('GET', '/health'), 200);
    });

    it('unknown paths → 404, even ones named like object properties', async () => {
      for (const path of ['/nope', '/__proto__', '/constructor']) {
        assert.equal((await fetch(`${stack.baseUrl}${path}`)).status, 404, path);
      }
    });

    it('wrong Content-Type → 415; an Accept admitting neither JSON nor event-stream → 406', async () => {
      const body = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}';
      assert.equal((await post(body, { ...JSON_RPC_HEADERS, 'content-type': 'text/plain' })).status, 415);
      assert.equal((await post(body, { ...JSON_RPC_HEADERS, accept: 'text/html' })).status, 406);
    });

    it('with core down: tool calls get unavailable, /health says ok: false with 503', async () => {
      const { createInternalTransport } = await import('../../services/shared/internal-transport.ts');
      const { createFacade } = await import('../../facade/app.ts');
      const { capturingLogger } = await import('../support/captured-log.ts');
      const dead = createInternalTransport({ baseUrl: 'http://127.0.0.1:9' });
      const { freePort } = await import('../../scripts/port.ts');
      const port = await freePort();
      const { testOAuthConfig } = await import('../support/oauth.ts');
      const { logger, lines } = capturingLogger<any>('info');
      const app = await createFacade({
        core: dead,
        allowedHosts: [`127.0.0.1:${port}`],
        logger,
        publicBaseUrl: 'http://127.0.0.1:9',
        oauth: testOAuthConfig(),
      });
      const { default: request } = await import('node:http');
      const server = request.createServer(app.callback()).listen(port, '127.0.0.1');
      await new Promise((r) => server.once('listening', r));
      try {
        const call = await fetch(`http://127.0.0.1:${port}/mcp`, {
          method: 'POST',
          headers: JSON_RPC_HEADERS,
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 7,
            method: 'tools/call',
            params: { name: 'start_skin_scan', arguments: { source: 'x' } },
          }),
        });
        const failed = (await call.json()) as any;
        assert.equal(failed.id, 7);
        assert.equal(errorCode(failed.result), 'unavailable', 'core down: a tool result the agent can read');
        assert.equal(failed.result.structuredContent.error.retry_after_seconds, 5);
        assert.match(failed.result.structuredContent.error.message, /try again in 5 s/);
        const res = await fetch(`http://127.0.0.1:${port}/health`);
        assert.equal(res.status, 503);
        assert.deepEqual(await res.json(), {
          ok: false,
          admissions_enabled: false,
          catalog_tools_enabled: false,
          catalog: 'unknown',
          photo_intake: 'unavailable',
        });
        // Why it answers 503 is logged once, with the reason, not on every probe.
        assert.equal((await fetch(`http://127.0.0.1:${port}/health`)).status, 503);
        const why = lines.filter((line) => line.msg === 'health: answering 503');
        assert.equal(why.length, 1);
        assert.match(why[0].reason, /^core did not answer: .*ECONNREFUSED/);
      } finally {
        server.close();
      }
    });

    it('/health reports ok, the switches and photo intake', async () => {
      const res = await fetch(`${stack.baseUrl}/health`);
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), {
        ok: true,
        admissions_enabled: true,
        catalog_tools_enabled: true,
        photo_intake: 'direct_or_link',
      });
    });
  });
});
