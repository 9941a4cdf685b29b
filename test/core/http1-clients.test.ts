import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createConnectTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import * as grpc from '@grpc/grpc-js';
import { Health } from '../../gen/grpc/health/v1/health_pb.ts';
import { ScanService } from '../../gen/skinmatch/v1/scan_pb.ts';
import { errorReason } from '../../services/shared/errors.ts';
import { DEFAULT_SERVER_LIMITS } from '../../services/shared/server-limits.ts';
import { loadProto, unary } from '../support/grpc-js.ts';
import { startHealthServer } from '../support/rpc-server.ts';
import { type Stack, startStack } from '../support/stack.ts';

describe('core over HTTP/1.1 (Connect and gRPC-Web, as fetch and browsers call it) and HTTP/2 on one port', () => {
  let stack: Stack;

  before(async () => {
    stack = await startStack('http1-clients');
  });
  after(() => stack?.close());

  for (const [name, createTransport] of [
    ['Connect', createConnectTransport],
    ['gRPC-Web', createGrpcWebTransport],
  ] as const) {
    it(`${name} over HTTP/1.1: unary calls, an error by its exact code, and a WatchScan stream`, async () => {
      const client = createClient(
        ScanService,
        createTransport({ baseUrl: stack.coreUrl, httpVersion: '1.1' }),
      );
      const started = await client.startScan({ source: 'http1' });
      const identity = { runId: started.runId, accessToken: started.accessToken };
      assert.equal((await client.getScan(identity)).scan?.runId, started.runId);
      await assert.rejects(client.getScan({ ...identity, accessToken: '0'.repeat(64) }), (err) => {
        assert.equal(ConnectError.from(err).code, Code.NotFound);
        assert.equal(errorReason(err), 'not_found');
        return true;
      });
      const watched: string[] = [];
      for await (const message of client.watchScan(identity)) {
        watched.push(message.scan?.runId ?? '');
        break; // the stream stays open while the scan waits for its photo
      }
      assert.deepEqual(watched, [started.runId]);
      await client.deleteScan(identity);
    });
  }

  it('a plain fetch (Connect JSON over HTTP/1.1), then HTTP/2 clients on the same port', async () => {
    const res = await fetch(`${stack.coreUrl}/skinmatch.v1.ScanService/StartScan`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ source: 'fetch' }),
    });
    assert.equal(res.status, 200);
    const started = (await res.json()) as { runId: string; accessToken: string };
    assert.match(started.accessToken, /^[a-f0-9]{64}$/);
    const { skinmatch } = loadProto('skinmatch/v1/scan.proto');
    const scans = new skinmatch.v1.ScanService(
      new URL(stack.coreUrl).host,
      grpc.credentials.createInsecure(),
    );
    try {
      const got: any = await unary(scans, 'getScan', started);
      assert.equal(got.scan.runId, started.runId);
    } finally {
      scans.close();
    }
  });

  it('grpc-web-text (base64) is refused with 415: it needs a proxy that translates it (Envoy)', async () => {
    const res = await fetch(`${stack.coreUrl}/skinmatch.v1.ScanService/StartScan`, {
      method: 'POST',
      headers: { 'content-type': 'application/grpc-web-text', 'x-grpc-web': '1' },
      body: Buffer.from([0, 0, 0, 0, 0]).toString('base64'),
    });
    assert.equal(res.status, 415);
  });
});

describe('closing a server with HTTP/1.1 connections open', () => {
  it('answers the call in flight, then ends its connection and the idle ones', async () => {
    let hold = false;
    let release = () => {};
    let entered = () => {};
    const held = new Promise<void>((resolve) => (entered = resolve));
    const server = await startHealthServer({
      check: () => {
        if (!hold) return {};
        entered();
        return new Promise((resolve) => (release = () => resolve({})));
      },
      async *watch() {},
    });
    const client = createClient(
      Health,
      createConnectTransport({ baseUrl: `http://127.0.0.1:${server.port}`, httpVersion: '1.1' }),
    );
    await client.check({}); // its connection now waits, idle (keep-alive)
    hold = true;
    const inFlight = client.check({}); // on a second connection
    await held;
    let closed = false;
    const closing = server.close().then(() => (closed = true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(closed, false, 'the call in flight holds the close');
    release();
    assert.equal((await inFlight).status, 0);
    await closing;
  });
});

describe('an HTTP/1.1 client that sends its headers a line at a time and never ends them', () => {
  it('is answered 408 and its connection closed once the request read bound has passed', async () => {
    const server = await startHealthServer(
      { check: () => ({}), async *watch() {} },
      { limits: { ...DEFAULT_SERVER_LIMITS, requestReadTimeoutMs: 1500 } },
    );
    const socket = connect(server.port, '127.0.0.1');
    // A header line every 300 ms: the socket is never idle, so only a bound on the headers ends it.
    const drip = setInterval(() => socket.write('x-slow: 1\r\n'), 300);
    try {
      socket.write('POST /grpc.health.v1.Health/Check HTTP/1.1\r\nhost: core\r\n');
      let answer = '';
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
      const started = Date.now();
      const closedAfter = await new Promise<number>((resolve, reject) => {
        socket.once('close', () => resolve(Date.now() - started));
        socket.once('error', reject);
        setTimeout(() => reject(new Error('the connection was still open after 10 s')), 10_000);
      });
      assert.match(answer, /^HTTP\/1\.1 408 /);
      assert.ok(closedAfter >= 1400, `closed after ${closedAfter} ms, before the bound`);
    } finally {
      clearInterval(drip);
      socket.destroy();
      await server.close();
    }
  });
});
