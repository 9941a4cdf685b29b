/**
 * skinmatch_http_requests_total counts every request the façade answers once, by method, route template
 * and status: a page, the authorization server's discovery (oidc-provider), an unknown path holding a
 * run id (one bounded value, never the id), /mcp/account's 401, /mcp's 413, and headers cut by their
 * bound (408, answered by Node before any request was read).
 */
import assert from 'node:assert/strict';
import { MAX_BODY_BYTES } from '../../facade/mcp/endpoint.ts';
import { httpRequestDuration, httpRequests } from '../../services/shared/metrics.ts';
import { JSON_RPC_HEADERS } from '../support/mcp.ts';
import { connect } from '../support/raw-socket.ts';
import { type Stack, startStack } from '../support/stack.ts';

const RUN_ID = '3f2c9a4e-8d1b-4c7a-9e2f-5b6d7c8e9f01';

type Counts = Map<string, number>;

/** The counter's values, keyed `METHOD route status`. */
async function counts(): Promise<Counts> {
  const values = (await httpRequests.get()).values;
  return new Map(values.map((v) => [`${v.labels.method} ${v.labels.route} ${v.labels.status}`, v.value]));
}

function moved(before: Counts, after: Counts): Record<string, number> {
  const delta: Record<string, number> = {};
  for (const [key, value] of after) {
    const change = value - (before.get(key) ?? 0);
    if (change !== 0) delta[key] = change;
  }
  return delta;
}

describe('HTTP requests counted by route template and status', function () {
  this.timeout(60_000);
  let stack: Stack;

  before(async () => {
    stack = await startStack('http-metrics', { server: { headersTimeoutMs: 1500 } });
  });
  after(() => stack?.close());

  const get = async (path: string) => {
    const res = await fetch(`${stack.baseUrl}${path}`);
    await res.arrayBuffer();
    return res.status;
  };
  const post = async (path: string, body: string) => {
    const res = await fetch(`${stack.baseUrl}${path}`, { method: 'POST', headers: JSON_RPC_HEADERS, body });
    await res.arrayBuffer();
    return res.status;
  };

  it('a page, discovery, unknown paths, a 401 and a 413: once each, bounded labels', async () => {
    const before = await counts();
    assert.equal(await get('/.well-known/oauth-authorization-server'), 200);
    assert.equal(await get(`/scan/${RUN_ID}`), 404);
    assert.equal(await get(`/runs/${RUN_ID}/report`), 404);
    assert.equal(await get(`/runs/${RUN_ID.replace('3', '4')}/report`), 404);
    assert.equal(await get('/health'), 200);
    assert.equal(await post('/mcp/account', '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'), 401);
    assert.equal(await post('/mcp', ' '.repeat(MAX_BODY_BYTES + 1)), 413);
    const after = await counts();
    assert.deepEqual(moved(before, after), {
      'GET /.well-known/oauth-authorization-server 200': 1,
      'GET /scan/:id 404': 1,
      'GET /… 404': 2,
      'GET /health 200': 1,
      'POST /mcp/account 401': 1,
      'POST /mcp 413': 1,
    });
    for (const key of after.keys()) assert.doesNotMatch(key, /[0-9a-f]{8}-/, key);
    const unknownTimed = (await httpRequestDuration.get()).values.find(
      (v) => v.metricName === 'skinmatch_http_request_duration_seconds_count' && v.labels.route === '/…',
    );
    assert.ok((unknownTimed?.value ?? 0) >= 2, 'timed under the same bounded route');
  });

  it('headers cut by their bound: one 408, route `unparsed`', async () => {
    const before = await counts();
    const raw = await connect(stack.baseUrl);
    raw.socket.write(`GET /scan/${RUN_ID} HTTP/1.1\r\n`);
    await raw.closed;
    assert.equal(raw.answer().status, 408);
    assert.deepEqual(moved(before, await counts()), { 'OTHER unparsed 408': 1 });
  });

  it('what is not HTTP after a whole answer on the connection: one 400, `unparsed`, and the façade lives on', async () => {
    const raw = await connect(stack.baseUrl);
    raw.socket.write('GET /health HTTP/1.1\r\nHost: skinmatch\r\n\r\n');
    while (!raw.text().includes('admissions_enabled')) await new Promise((r) => setTimeout(r, 20));
    // The answer is done: Node has let go of it (the socket's response is null, not undefined).
    const before = await counts();
    raw.socket.write('NOT HTTP\r\n\r\n');
    await raw.closed;
    const second = raw.text().slice(raw.text().lastIndexOf('HTTP/1.1 '));
    assert.match(second, /^HTTP\/1\.1 400 Bad Request\r\n/);
    assert.deepEqual(moved(before, await counts()), { 'OTHER unparsed 400': 1 });
    assert.equal(await get('/health'), 200);
  });
});
