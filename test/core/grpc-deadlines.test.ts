/**
 * Deadlines as clients send them: one far away (a month: longer than a Node timer holds) is a deadline the
 * call keeps, not one that has passed; a server stream ended by its deadline ends DEADLINE_EXCEEDED, which
 * a client that keeps no timer of its own (a proxy, a raw HTTP/2 client) reads from the trailers.
 */
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import * as grpc from '@grpc/grpc-js';
import { loadProto, unary } from '../support/grpc-js.ts';
import { type Stack, startStack } from '../support/stack.ts';

const MONTH_MS = 30 * 24 * 3600 * 1000;

/** One gRPC call over HTTP/2 with its request message and headers, answered with its trailers' status. */
function grpcStatus(url: string, path: string, message: Buffer, headers: http2.OutgoingHttpHeaders) {
  return new Promise<{ status: string | undefined; messages: number }>((done, fail) => {
    const session = http2.connect(url);
    session.on('error', fail);
    const body = Buffer.alloc(5 + message.length);
    body.writeUInt32BE(message.length, 1);
    message.copy(body, 5);
    const req = session.request({
      ':method': 'POST',
      ':path': path,
      'content-type': 'application/grpc',
      te: 'trailers',
      ...headers,
    });
    let bytes = 0;
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('trailers', (trailers) => {
      done({ status: trailers['grpc-status'] as string | undefined, messages: bytes });
      session.close();
    });
    req.on('error', fail);
    req.end(body);
  });
}

/** A protobuf string field. */
const text = (field: number, value: string) => {
  const bytes = Buffer.from(value);
  return Buffer.concat([Buffer.from([(field << 3) | 2, bytes.length]), bytes]);
};

describe('deadlines of calls to core', () => {
  let stack: Stack;
  let scans: any;

  before(async () => {
    stack = await startStack('grpc-deadlines');
    const { skinmatch } = loadProto('skinmatch/v1/scan.proto');
    scans = new skinmatch.v1.ScanService(new URL(stack.coreUrl).host, grpc.credentials.createInsecure());
  });
  after(async () => {
    scans?.close();
    await stack?.close();
  });

  it('a deadline a month away is kept, not passed at once (was DEADLINE_EXCEEDED within milliseconds)', async () => {
    const deadline = Date.now() + MONTH_MS; // grpc-js sends grpc-timeout: 2592000S
    const started: any = await unary(scans, 'startScan', { source: 'long deadline' });
    const identity = { runId: started.runId, accessToken: started.accessToken };
    const got = await new Promise<any>((done, fail) =>
      scans.getScan(identity, { deadline }, (err: Error | null, res: any) => (err ? fail(err) : done(res))),
    );
    assert.equal(got.scan.status, 'SCAN_STATUS_AWAITING_UPLOAD');

    // A watch with that deadline stays open until the scan ends it (here: deleted), not the deadline.
    const states: string[] = [];
    const ended = new Promise<number>((done) => {
      const call = scans.watchScan(identity, { deadline });
      call.on('data', (msg: any) => {
        states.push(msg.scan.status);
        if (states.length === 1) unary(scans, 'deleteScan', identity).catch(() => {});
      });
      call.on('error', (err: grpc.ServiceError) => done(err.code));
      call.on('end', () => done(grpc.status.OK));
    });
    assert.equal(grpc.status[await ended], 'NOT_FOUND');
    assert.deepEqual(states, ['SCAN_STATUS_AWAITING_UPLOAD']);

    // Connect's own header, up to 10 digits of milliseconds.
    const res = await fetch(`${stack.coreUrl}/skinmatch.v1.ScanService/StartScan`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'connect-timeout-ms': String(MONTH_MS) },
      body: JSON.stringify({ source: 'long deadline' }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    assert.match(((await res.json()) as { runId: string }).runId, /^[0-9a-f-]{36}$/);
  });

  it('a server stream cut by its deadline ends DEADLINE_EXCEEDED in its trailers (WatchScan and health Watch ended OK)', async () => {
    const started: any = await unary(scans, 'startScan', { source: 'short deadline' });
    const watchScan = Buffer.concat([text(1, started.runId), text(2, started.accessToken)]);
    const watch = await grpcStatus(stack.coreUrl, '/skinmatch.v1.ScanService/WatchScan', watchScan, {
      'grpc-timeout': '300m',
    });
    assert.ok(watch.messages > 0, 'the scan’s state came first');
    assert.equal(watch.status, String(grpc.status.DEADLINE_EXCEEDED));

    const health = await grpcStatus(stack.coreUrl, '/grpc.health.v1.Health/Watch', Buffer.alloc(0), {
      'grpc-timeout': '300m',
    });
    assert.ok(health.messages > 0, 'the status came first');
    assert.equal(health.status, String(grpc.status.DEADLINE_EXCEEDED));
  });
});
