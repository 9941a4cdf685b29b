/**
 * What the façade's log says of a slow client it refused (facade/slow-bodies.ts, server.ts): one line,
 * `slow client refused`, a warning, with the bound and the status it was answered. Before, a body cut as
 * too slow left no line at all (the route kept waiting for a body that would never come, so even the
 * request's line never came), headers past their bound none either, a 429 refusal was an ordinary
 * `request` line, and a slow client that hung up itself made two (`client connection ended before its
 * request did` and a `request` 400). Real sockets, the stack's own log file.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { consentedScan } from '../support/consent.ts';
import { until } from '../support/processes.ts';
import { type Stack, startStack } from '../support/stack.ts';

/**
 * A grace well past what the network case needs before its slow clients hang up (1.2 s, the 429, the log):
 * at 2 s a loaded machine cut them first (408) and the hang-ups were never seen (CI, load 7-10).
 */
const BODY_BOUNDS = { graceMs: 5000, minBytesPerSecond: 1000, perNetwork: 3 };
const CONNECTIONS_PER_NETWORK = 6;

interface Raw {
  readonly socket: net.Socket;
  readonly closed: Promise<void>;
  readonly status: () => number;
}

async function connect(baseUrl: string): Promise<Raw> {
  const socket = net.connect({ port: Number(new URL(baseUrl).port), host: '127.0.0.1' });
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    text += chunk;
  });
  socket.on('error', () => {}); // writes after the server closed: EPIPE
  const closed = new Promise<void>((done) => socket.once('close', () => done()));
  await new Promise((done) => socket.once('connect', done));
  return { socket, closed, status: () => Number(text.split(' ')[1]) };
}

/** A POST whose body comes a byte every 250 ms until the connection closes. */
async function trickle(baseUrl: string, path: string, headers = '', type = 'application/json'): Promise<Raw> {
  const raw = await connect(baseUrl);
  raw.socket.write(
    `POST ${path} HTTP/1.1\r\nHost: ${new URL(baseUrl).host}\r\nContent-Type: ${type}\r\n` +
      `Accept: application/json, text/event-stream\r\nContent-Length: 300\r\n${headers}\r\n`,
  );
  const timer = setInterval(() => raw.socket.writable && raw.socket.write(' '), 250);
  void raw.closed.finally(() => clearInterval(timer));
  return raw;
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

describe('the façade’s log of slow clients it refused', function () {
  this.timeout(60_000);
  let stack: Stack;
  before(async () => {
    stack = await startStack('slow-client-logs', {
      facade: { bodyBounds: BODY_BOUNDS },
      server: { headersTimeoutMs: 1500, connectionsPerNetwork: CONNECTIONS_PER_NETWORK },
    });
  });
  after(() => stack?.close());

  /** The façade's log lines written while `act` runs and until `settled` holds (plus a moment), in short. */
  async function linesOf(act: () => Promise<unknown>, settled: (lines: string[]) => boolean) {
    const lines = () =>
      readFileSync(stack.logFile, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line))
        .filter((entry) => entry.name === 'facade');
    const from = lines().length;
    await act();
    const short = () =>
      lines()
        .slice(from)
        .map((e) => [e.level, e.msg, e.path, e.status, e.bound ?? e.code].filter(Boolean).join(' '));
    await until('the log lines', () => settled(short()), 10_000).catch(() => {});
    await sleep(500); // anything else it would write about them
    return short();
  }
  const refusedLine = (lines: string[]) => lines.some((line) => line.includes('slow client refused'));

  for (const [path, type] of [
    ['/mcp', 'application/json'],
    ['/token', 'application/x-www-form-urlencoded'],
  ]) {
    it(`a body cut as too slow on ${path}: one warning, 408 body_rate`, async () => {
      const lines = await linesOf(async () => {
        const raw = await trickle(stack.baseUrl, path!, '', type);
        await raw.closed;
        assert.equal(raw.status(), 408);
      }, refusedLine);
      assert.deepEqual(lines, [`warn slow client refused ${path} 408 body_rate`]);
    });
  }

  it('a photo cut as too slow: one warning, 408 body_rate', async () => {
    const scan = await consentedScan(stack, null);
    const lines = await linesOf(async () => {
      const raw = await trickle(
        stack.baseUrl,
        `/scan/${scan.runId}/photo`,
        `Origin: ${stack.baseUrl}\r\nCookie: __Host-skinmatch-browser=${scan.browserSecret}\r\n`,
      );
      await raw.closed;
      assert.equal(raw.status(), 408);
    }, refusedLine);
    assert.deepEqual(lines, ['warn slow client refused /scan/:id/photo 408 body_rate']);
  });

  it('a network past its slow bodies: one warning, 429 bodies; slow clients hanging up: one line each', async () => {
    const slow = await Promise.all(
      Array.from({ length: BODY_BOUNDS.perNetwork }, () => trickle(stack.baseUrl, '/mcp')),
    );
    await sleep(1200); // slow: still arriving a second on
    const refused = await linesOf(async () => {
      const raw = await trickle(stack.baseUrl, '/mcp');
      await raw.closed;
      assert.equal(raw.status(), 429);
    }, refusedLine);
    assert.deepEqual(refused, ['warn slow client refused /mcp 429 bodies']);
    const ended = await linesOf(
      async () => {
        for (const raw of slow) raw.socket.destroy();
        await Promise.all(slow.map((raw) => raw.closed));
      },
      (lines) => lines.length >= BODY_BOUNDS.perNetwork,
    );
    assert.deepEqual(
      ended,
      slow.map(() => 'info client connection ended before its request did /mcp HPE_INVALID_EOF_STATE'),
    );
  });

  it('a connection past its network’s bound: one warning, 429 connections', async () => {
    const open = await Promise.all(
      Array.from({ length: CONNECTIONS_PER_NETWORK }, () => connect(stack.baseUrl)),
    );
    const lines = await linesOf(async () => {
      const raw = await trickle(stack.baseUrl, '/mcp');
      await raw.closed;
      assert.equal(raw.status(), 429);
    }, refusedLine);
    for (const raw of open) raw.socket.destroy();
    assert.deepEqual(lines, ['warn slow client refused /mcp 429 connections']);
  });

  it('headers past their bound: one warning, 408 headers', async () => {
    const lines = await linesOf(async () => {
      const raw = await connect(stack.baseUrl);
      raw.socket.write('POST /mcp HTTP/1.1\r\n');
      const timer = setInterval(() => raw.socket.writable && raw.socket.write('X-Slow: 1\r\n'), 300);
      await raw.closed;
      clearInterval(timer);
      assert.equal(raw.status(), 408);
    }, refusedLine);
    assert.deepEqual(lines, ['warn slow client refused 408 headers']);
  });
});
