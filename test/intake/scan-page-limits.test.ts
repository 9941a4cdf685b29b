/**
 * The upload page's bounds on a real façade and core: the photo size bound enforced while the body streams
 * in (the answer comes before the body has been sent, and the connection is kept or closed cleanly), and
 * the upload budgets per network (the façade's) and per scan (core's), with Retry-After, and the network's
 * request budget that every route of the page spends.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { refusalWords } from '../../facade/pages/scan-words.ts';
import { singleFace } from '../inference/support/photos.ts';
import { testIntake } from '../support/intake.ts';
import { callTool } from '../support/mcp.ts';
import { assertPageHeaders } from '../support/page-headers.ts';
import { type Stack, startStack } from '../support/stack.ts';
import { RawConnection } from './raw-http.ts';
import {
  assertRefusal,
  BROWSER_COOKIE,
  type PageScan,
  pageFetch,
  pageScan,
  postPhoto,
} from './scan-page-support.ts';

const MB = 1024 * 1024;
const MAX_BYTES = 10 * MB;

describe('the upload page: the photo size bound while the body streams in', function () {
  this.timeout(60_000);
  let stack: Stack;
  let scan: PageScan;

  before(async () => {
    stack = await startStack('scan-page-size');
    scan = await pageScan(stack.baseUrl);
  });
  after(() => stack?.close());

  const photoHead = (framing: string) =>
    `POST /scan/${scan.run_id}/photo HTTP/1.1\r\nHost: ${new URL(stack.baseUrl).host}\r\n` +
    `Origin: ${stack.baseUrl}\r\nCookie: ${BROWSER_COOKIE}=${scan.secret}\r\n` +
    `Content-Type: image/jpeg\r\n${framing}\r\n\r\n`;
  const tooLarge = (body: string) => {
    assert.deepEqual(JSON.parse(body), {
      error: 'photo_too_large',
      message: refusalWords('photo_too_large', { maxBytes: MAX_BYTES }),
    });
    assert.equal(refusalWords('photo_too_large', { maxBytes: MAX_BYTES }).includes('10 MB'), true);
  };
  const nextRequestWorks = async (connection: RawConnection) => {
    connection.write(`GET /health HTTP/1.1\r\nHost: ${new URL(stack.baseUrl).host}\r\n\r\n`);
    assert.equal((await connection.response()).status, 200);
  };

  it('a body just over the bound is refused, and the same keep-alive connection serves the next request', async () => {
    const connection = new RawConnection(stack.baseUrl);
    const size = MAX_BYTES + 1;
    connection.write(photoHead(`Content-Length: ${size}`));
    await connection.sendBody(size, false, true); // a client that sends what it declared
    const refused = await connection.response();
    assert.equal(refused.status, 413);
    assert.notEqual(refused.headers.connection, 'close');
    tooLarge(refused.body);
    await nextRequestWorks(connection);
    connection.socket.end();
    await connection.closed;
    assert.equal(connection.error, undefined);
  });

  for (const framing of ['Content-Length: 52428800', 'Transfer-Encoding: chunked']) {
    it(`a 50 MB body (${framing.split(':')[0]}) is answered 413 before it is sent, and the connection closed cleanly`, async () => {
      const connection = new RawConnection(stack.baseUrl);
      const started = performance.now();
      connection.write(photoHead(framing));
      const sent = await connection.sendBody(50 * MB, framing.startsWith('Transfer'));
      const refused = await connection.response();
      const ms = performance.now() - started;
      assert.equal(refused.status, 413);
      assert.equal(refused.headers.connection, 'close');
      tooLarge(refused.body);
      // The answer came while the client was still sending: the server did not wait for the 50 MB.
      assert.ok(sent < 25 * MB, `${(sent / MB).toFixed(1)} MB sent before the answer`);
      if (framing.startsWith('Content')) assert.ok(sent < MAX_BYTES, 'refused by its declared length');
      // Closed by the server after the answer, without a reset: the client read all of it.
      connection.socket.end();
      await connection.closed;
      assert.equal(connection.ended, true);
      assert.equal(connection.error, undefined);
      console.log(
        `      (${(sent / MB).toFixed(1)} MB sent before the 413, answered in ${ms.toFixed(0)} ms)`,
      );
      // The façade serves on.
      const next = new RawConnection(stack.baseUrl);
      await nextRequestWorks(next);
      next.socket.end();
    });
  }

  it('a browser gone mid-upload: nothing is stored, its next photo is taken, and one log line says so', async () => {
    const photo = await singleFace('a');
    const gone = await pageScan(stack.baseUrl);
    const connection = new RawConnection(stack.baseUrl);
    connection.write(
      photoHead(`Content-Length: ${photo.length}`)
        .replaceAll(scan.run_id, gone.run_id)
        .replace(scan.secret, gone.secret),
    );
    connection.socket.write(photo.subarray(0, photo.length >> 1));
    await new Promise((sent) => setTimeout(sent, 200)); // the half on the server, as a phone losing signal
    // Koa's own handler wrote this to stderr as a stack (on the old code), outside the log.
    const stderr: unknown[] = [];
    const consoleError = console.error;
    console.error = (...args: unknown[]) => stderr.push(args);
    try {
      connection.socket.end();
      await connection.closed;
      const line = /"msg":"client connection ended before its request did"/;
      for (let waited = 0; !line.test(readFileSync(stack.logFile, 'utf8')) && waited < 5000; waited += 50)
        await new Promise((next) => setTimeout(next, 50));
    } finally {
      console.error = consoleError;
    }
    assert.deepEqual(stderr, []);
    const logged = readFileSync(stack.logFile, 'utf8')
      .split('\n')
      .filter((l) => l.includes('client connection ended before its request did'))
      .map((l) => JSON.parse(l));
    assert.equal(logged.length, 1);
    assert.equal(logged[0].level, 'info');
    // The route, never the path with its scan id (facade/route-template.ts).
    assert.equal(logged[0].path, '/scan/:id/photo');
    const agent = { run_id: gone.run_id, access_token: gone.access_token };
    const before = (await callTool(stack.baseUrl, 'get_skin_scan', agent)).structuredContent;
    assert.equal(before.status, 'awaiting_upload');
    const retry = await postPhoto(stack.baseUrl, gone.run_id, photo, { secret: gone.secret });
    assert.equal(retry.status, 202, await retry.text());
  });

  it('a refusal before reading (another browser) does not read a large body either', async () => {
    const connection = new RawConnection(stack.baseUrl);
    connection.write(photoHead('Content-Length: 52428800').replace(scan.secret, 'cd'.repeat(32)));
    const sent = await connection.sendBody(50 * MB, false);
    const refused = await connection.response();
    assert.equal(refused.status, 403);
    assert.equal(JSON.parse(refused.body).error, 'not_consenting_browser');
    assert.ok(sent < MAX_BYTES, `${(sent / MB).toFixed(1)} MB sent before the answer`);
    connection.socket.end();
    await connection.closed;
    assert.equal(connection.error, undefined);
  });
});

describe('the upload page: upload budgets per network and per scan', function () {
  this.timeout(60_000);
  let stack: Stack;

  before(async () => {
    stack = await startStack('scan-page-budgets', {
      limits: { callsPerMinute: 1_000_000, scansPerHour: 1_000_000, uploadsPerHour: 3 },
      intake: testIntake({ uploadsPerHour: 2 }),
    });
  });
  after(() => stack?.close());

  const notAnImage = Buffer.from('not an image');
  const rateLimited = async (res: Response) => {
    const retry = Number(res.headers.get('retry-after'));
    assert.ok(retry > 3500 && retry <= 3600, String(retry));
    await assertRefusal(
      res,
      429,
      'rate_limited',
      'Too many photos were sent. Wait 60 minutes, then try again.',
    );
  };

  it('refuses the scan’s third photo in an hour (core), then the network’s fourth (façade)', async () => {
    const first = await pageScan(stack.baseUrl);
    const send = (scan: PageScan) =>
      postPhoto(stack.baseUrl, scan.run_id, notAnImage, { secret: scan.secret });
    assert.equal((await send(first)).status, 415);
    assert.equal((await send(first)).status, 415);
    await rateLimited(await send(first)); // the scan's budget: 2 an hour
    const second = await pageScan(stack.baseUrl);
    await rateLimited(await send(second)); // the network's budget: 3 an hour, this is its 4th
  });
});

describe("the upload page spends the network's request budget", function () {
  this.timeout(60_000);
  const BUDGET = 12;
  let stack: Stack;

  before(async () => {
    stack = await startStack('scan-page-requests', {
      limits: { requestsPerMinute: BUDGET, callsPerMinute: 1000, scansPerHour: 1000 },
    });
  });
  after(() => stack?.close());

  it('past it every route is 429 with Retry-After (the page a page); forged X-Forwarded-For changes nothing', async () => {
    const scan = await pageScan(stack.baseUrl); // the agent's start, the page, its challenge and consent
    const page = `/scan/${scan.run_id}`;
    const forged = () => ({ 'x-forwarded-for': `203.0.113.${Math.floor(Math.random() * 250) + 1}` });
    let served = 0;
    for (; served <= BUDGET; served++) {
      const res = await pageFetch(stack.baseUrl, `${page}/challenge`, { headers: forged() });
      await res.arrayBuffer();
      if (res.status === 429) break;
      assert.equal(res.status, 200);
    }
    assert.ok(served > 0 && served < BUDGET, `${served} challenges served`);

    const waitWords = /^Too many requests from this network; wait \d+ s before trying again\.$/;
    const refused = async (res: Response) => {
      assert.match(res.headers.get('retry-after') ?? '', /^\d+$/);
      await assertRefusal(res, 429, 'rate_limited', waitWords);
    };
    const secret = scan.secret;
    await refused(await pageFetch(stack.baseUrl, `${page}/challenge`, { headers: forged() }));
    await refused(await pageFetch(stack.baseUrl, `${page}/state`, { secret }));
    await refused(await pageFetch(stack.baseUrl, `${page}/events`, { secret }));
    await refused(await postPhoto(stack.baseUrl, scan.run_id, await singleFace('a'), { secret }));
    await refused(await pageFetch(stack.baseUrl, `${page}/delete`, { method: 'POST', secret }));
    await refused(
      await pageFetch(stack.baseUrl, `${page}/consent`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      }),
    );
    const html = await pageFetch(stack.baseUrl, page, { secret });
    assert.equal(html.status, 429);
    assert.match(html.headers.get('retry-after') ?? '', /^\d+$/);
    assert.match(html.headers.get('content-type') ?? '', /^text\/html/);
    assertPageHeaders(html.headers);
    assert.match(await html.text(), /Too many requests from this network; wait \d+ s before trying again\./);
    // The page's files cost core nothing: served as ever.
    assert.equal((await pageFetch(stack.baseUrl, '/scan/assets/scan-page.js')).status, 200);
  });
});
