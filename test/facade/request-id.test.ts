/**
 * Request ids and trace context in the logs: the façade takes a sane `X-Request-Id` (or makes one) and
 * echoes it; it and the caller's `traceparent` reach core, whose log lines for the call carry both. And
 * the logger's own redaction and scrubbing of secrets.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createLogger, scrub } from '../../services/shared/logger.ts';
import { JSON_RPC_HEADERS } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('request ids and trace context', () => {
  let stack: Stack;

  before(async () => {
    stack = await startStack('request-id');
  });
  after(() => stack?.close());

  async function post(headers: Record<string, string>) {
    return fetch(`${stack.baseUrl}/mcp`, {
      method: 'POST',
      headers: { ...JSON_RPC_HEADERS, ...headers },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'start_skin_scan', arguments: { source: 'request-id' } },
      }),
    });
  }

  /** The log lines written so far, parsed (what follows the last newline is a line still being written). */
  function lines(): Record<string, unknown>[] {
    return readFileSync(stack.logFile, 'utf8')
      .split('\n')
      .slice(0, -1)
      .map((line) => JSON.parse(line));
  }

  /**
   * The first line that passes `check`, once written (the log stream writes behind the answer): up to 10 s,
   * as late as a loaded machine writes it (it was 100 polls of 20 ms).
   */
  async function logged(check: (line: Record<string, unknown>) => boolean) {
    for (const deadline = Date.now() + 10_000; ; ) {
      const line = lines().find(check);
      if (line || Date.now() > deadline) return line;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('echoes a sane incoming X-Request-Id, and replaces one that is not', async () => {
    assert.equal(
      (await post({ 'x-request-id': 'agent-42.call_7' })).headers.get('x-request-id'),
      'agent-42.call_7',
    );
    for (const insane of ['has spaces', 'x'.repeat(65), 'line\\nbreak', '"quoted"']) {
      const echoed = (await post({ 'x-request-id': insane })).headers.get('x-request-id');
      assert.match(echoed ?? '', UUID, insane);
    }
    assert.match((await post({})).headers.get('x-request-id') ?? '', UUID);
    // Every façade response has one, not only the MCP endpoint's.
    assert.match((await fetch(`${stack.baseUrl}/health`)).headers.get('x-request-id') ?? '', UUID);
  });

  it('carries the request id and the traceparent’s trace id to core, whose log lines show both', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const response = await post({
      'x-request-id': 'trace-me-1',
      traceparent: `00-${traceId}-00f067aa0ba902b7-01`,
    });
    assert.equal(response.status, 200);
    await logged((line) => line.name === 'core' && line.msg === 'rpc' && line.request_id === 'trace-me-1');
    const core = lines().filter((line) => line.name === 'core' && line.request_id === 'trace-me-1');
    assert.ok(core.length > 0, 'core logged the call under the façade’s request id');
    assert.ok(core.every((line) => line.trace_id === traceId));
    const rpc = core.find((line) => line.msg === 'rpc');
    assert.match(String(rpc?.procedure), /ScanService\/StartScan$/);
    const facade = await logged((line) => line.name === 'facade' && line.request_id === 'trace-me-1');
    assert.equal(facade?.trace_id, traceId);
    assert.equal(facade?.msg, 'request');
    assert.equal(facade?.status, 200);
  });

  it('gives a request without a traceparent its request id at core, and no made-up trace id', async () => {
    await post({ 'x-request-id': 'no-parent-1' });
    const core = await logged((line) => line.name === 'core' && line.request_id === 'no-parent-1');
    // Without an SDK no span records, but a request without a parent has no trace to carry: core's lines
    // have the request id, and a trace id only if one was given.
    assert.ok(core);
    assert.equal(core.trace_id, undefined);
  });
});

describe('the logger: level names, and secrets kept out of its lines', () => {
  function written(log: (logger: ReturnType<typeof createLogger>) => void): string {
    const chunks: string[] = [];
    const logger = createLogger('t', 'debug', { write: (chunk: string) => chunks.push(chunk) });
    log(logger);
    return chunks.join('');
  }

  it('names each line’s level (pipelines need no map of pino’s numbers)', () => {
    const lines = written((logger) => {
      logger.info('one');
      logger.warn('two');
      logger.error('three');
    });
    const levels = lines
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).level);
    assert.deepEqual(levels, ['info', 'warn', 'error']);
  });

  it('redacts secret fields by name, at any of the first three levels', () => {
    const line = written((logger) =>
      logger.info(
        {
          headers: { authorization: 'x', cookie: 'y', 'set-cookie': ['z'] },
          refresh_token: 'a',
          client_secret: 'b',
          browser_secret: 'c',
          solution: 'd',
          nested: { deeper: { access_token: 'e' } },
          code: 'NotFound', // an RPC outcome, not an authorization code
        },
        'fields',
      ),
    );
    const parsed = JSON.parse(line);
    assert.deepEqual(parsed.headers, {
      authorization: '[redacted]',
      cookie: '[redacted]',
      'set-cookie': '[redacted]',
    });
    for (const key of ['refresh_token', 'client_secret', 'browser_secret', 'solution'])
      assert.equal(parsed[key], '[redacted]', key);
    assert.equal(parsed.nested.deeper.access_token, '[redacted]');
    assert.equal(parsed.code, 'NotFound');
  });

  it('scrubs the shapes of secrets from messages and error texts', () => {
    const secrets = [
      'a1'.repeat(32), // a scan token or browser secret
      'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhY2NvdW50In0.c2lnbmF0dXJlLXBhcnQ', // a JWT
      'Xk9fQ2mZp7LrTqW4nB8vY1cD6hJ3sE0aGuKoNiMlR5t', // an oidc-provider code or refresh token
    ];
    const line = written((logger) =>
      logger.warn(
        { err: `upstream said Bearer ${secrets[1]} and code=${secrets[2]}` },
        `token ${secrets[0]} failed`,
      ),
    );
    for (const secret of secrets) assert.ok(!line.includes(secret), secret);
    assert.match(line, /Bearer \[redacted\]/);
    // What is not secret-shaped stays: ids, trace ids, paths.
    const plain = '4bf92f3577b34da6a3ce929d0e0e4736 550e8400-e29b-41d4-a716-446655440000 services/scan/x.ts';
    assert.equal(scrub(plain), plain);
  });
});
