/**
 * A body declared larger than its route's bound (Content-Length) is refused at once, before a byte of it is
 * read, on every route that reads a body into memory: POST /mcp, the upload page's consent, the
 * authorization server's /register. The client here sends its headers and a few bytes, then waits, as a
 * client does that sent `Expect: 100-continue` or whose upload stalled: these routes used to wait for the
 * body until the slow-body cut and answer 408 instead of the bound's refusal. The connection is closed after
 * the answer (the rest is too large to drop), and other requests are served meanwhile.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { MAX_BODY_BYTES } from '../../facade/mcp/endpoint.ts';
import { connect } from '../support/raw-socket.ts';
import { type Stack, startStack } from '../support/stack.ts';

const DECLARED = 50 * MAX_BODY_BYTES;

/** Headers declaring DECLARED bytes and 100 bytes of them; the answer once the server closed. */
async function stalledPost(stack: Stack, path: string, type: string) {
  const raw = await connect(stack.baseUrl);
  raw.socket.write(
    `POST ${path} HTTP/1.1\r\nHost: ${new URL(stack.baseUrl).host}\r\nOrigin: ${stack.baseUrl}\r\n` +
      `Content-Type: ${type}\r\nAccept: application/json, text/event-stream\r\n` +
      `Content-Length: ${DECLARED}\r\n\r\n${' '.repeat(100)}`,
  );
  await raw.closed;
  return raw.answer();
}

describe('bodies declared larger than the bound', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack('declared-length');
  });
  after(() => stack?.close());

  it('POST /mcp: 413 with -32600, not a wait for the body', async () => {
    const answer = await stalledPost(stack, '/mcp', 'application/json');
    assert.equal(answer.status, 413);
    assert.equal(answer.headers.connection, 'close');
    assert.deepEqual(answer.body, {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Request body too large.' },
    });
  });

  it("the upload page's consent: 400 invalid_request", async () => {
    const answer = await stalledPost(stack, `/scan/${randomUUID()}/consent`, 'application/json');
    assert.equal(answer.status, 400);
    assert.equal(answer.body.error, 'invalid_request');
  });

  it('/register: 400 invalid_request', async () => {
    const answer = await stalledPost(stack, '/register', 'application/json');
    assert.equal(answer.status, 400);
    assert.equal(answer.body.error, 'invalid_request');
  });

  it('a body within the bound on the same route is still read and served', async () => {
    const res = await fetch(`${stack.baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
    });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { id: number }).id, 3);
  });
});
