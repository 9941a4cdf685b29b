/**
 * `Expect: 100-continue` on real sockets: the go-ahead comes once a route reads the body, so a body the
 * façade refuses unread (declared over the bound, a scan that is not there) is answered with its final
 * status and never asked for, and the connection is closed after it. Node used to send `100 Continue` as
 * soon as the headers arrived, and the client then sent the whole body only to have it dropped.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { MAX_BODY_BYTES } from '../../facade/mcp/endpoint.ts';
import { until } from '../support/processes.ts';
import { connect } from '../support/raw-socket.ts';
import { type Stack, startStack } from '../support/stack.ts';

const TOOLS_LIST = JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/list' });

describe('Expect: 100-continue', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack('expect-continue');
  });
  after(() => stack?.close());

  const head = (path: string, length: number, type = 'application/json') =>
    `POST ${path} HTTP/1.1\r\nHost: ${new URL(stack.baseUrl).host}\r\nOrigin: ${stack.baseUrl}\r\n` +
    `Content-Type: ${type}\r\nAccept: application/json, text/event-stream\r\n` +
    `Content-Length: ${length}\r\nExpect: 100-continue\r\n\r\n`;

  it('a body the route reads: 100 Continue, then the answer', async () => {
    const raw = await connect(stack.baseUrl);
    raw.socket.write(head('/mcp', Buffer.byteLength(TOOLS_LIST)));
    await until('the go-ahead', () => raw.answer().status === 100);
    raw.socket.write(TOOLS_LIST);
    await until('the answer', () => raw.text().includes('"id":4'));
    assert.match(raw.text(), /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
    raw.socket.destroy();
  });

  it('POST /mcp declared over the bound: 413 at once, no go-ahead, the connection closed', async () => {
    const raw = await connect(stack.baseUrl);
    raw.socket.write(head('/mcp', 50 * MAX_BODY_BYTES));
    await raw.closed;
    assert.doesNotMatch(raw.text(), /100 Continue/);
    assert.equal(raw.answer().status, 413);
    assert.equal(raw.answer().body.error.code, -32600);
  });

  it('a photo for a scan that is not there: 404 not_found, no go-ahead, the connection closed', async () => {
    const raw = await connect(stack.baseUrl);
    raw.socket.write(head(`/scan/${randomUUID()}/photo`, 5 * 1024 * 1024, 'image/jpeg'));
    await raw.closed;
    assert.doesNotMatch(raw.text(), /100 Continue/);
    assert.equal(raw.answer().status, 404);
    assert.equal(raw.answer().body.error, 'not_found');
  });
});
