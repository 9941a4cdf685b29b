/**
 * The bounds on the upload page's open progress streams (facade/pages/page-streams.ts). A probe opened 780
 * streams on one consented scan from one network: the first 768 held every watch core may hold
 * (GRPC_MAX_WATCHES), and every other person's page was refused its progress, each refusal an error line.
 * Now a scan has a few streams and a network a few more, refused with 429 before core is asked; each slot is
 * given back when its stream closes (the page gone, the scan complete or deleted, core refusing it, its
 * lifetime over); core's own bound, still reachable from many networks, is a 503 counted, not logged.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, createRouterTransport } from '@connectrpc/connect';
import Koa from 'koa';
import pino from 'pino';
import { relayEvents } from '../../facade/pages/page-events.ts';
import { type StreamBounds, StreamSlots } from '../../facade/pages/page-streams.ts';
import { REFUSALS, streamBoundWords } from '../../facade/pages/scan-words.ts';
import { IntakeService } from '../../gen/skinmatch/v1/intake_pb.ts';
import { pageStreamsRefused } from '../../services/shared/metrics.ts';
import { DEFAULT_SERVER_LIMITS } from '../../services/shared/server-limits.ts';
import { completeScan, RED_ACNE_SCORES } from '../support/fixtures.ts';
import { callTool } from '../support/mcp.ts';
import { type Stack, startStack } from '../support/stack.ts';
import { assertRefusal, type PageScan, pageFetch, pageScan } from './scan-page-support.ts';

const BOUNDS: StreamBounds = { perScan: 4, perNetwork: 6, lifetimeMs: 60_000 };
const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

interface OpenStream {
  readonly status: number;
  readonly res: Response;
  /** The page goes away. */
  close(): void;
  /** What the stream sent after its first state, to its end. */
  readonly rest: Promise<string>;
}

async function readAll(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read())
      text += decoder.decode(read.value);
  } catch {
    // closed by the test
  }
  return text;
}

describe('the upload page’s progress streams: a few per scan and per network', function () {
  this.timeout(90_000);
  let stack: Stack;
  const open: OpenStream[] = [];

  before(async () => {
    stack = await startStack('scan-page-streams', {
      facade: { trustProxy: true, pageStreamBounds: BOUNDS },
      serverLimits: { ...DEFAULT_SERVER_LIMITS, maxWatches: 10 },
    });
  });
  afterEach(async () => {
    for (const stream of open.splice(0)) stream.close();
    await sleep(300); // the façade sees them close and cancels its watches on core
  });
  after(() => stack?.close());

  /** A stream of `scan` from `network` (the X-Forwarded-For the façade trusts); 200: its first state read. */
  async function watch(scan: PageScan, network: string, secret = scan.secret): Promise<OpenStream> {
    const stop = new AbortController();
    const res = await pageFetch(stack.baseUrl, `/scan/${scan.run_id}/events`, {
      secret,
      headers: { 'x-forwarded-for': network },
      signal: stop.signal,
    });
    const stream = { status: res.status, res, close: () => stop.abort(), rest: Promise.resolve('') };
    if (res.status !== 200) return stream;
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    assert.match(first, /^event: state\n/);
    open.push(stream);
    return { ...stream, rest: readAll(reader) };
  }

  async function watchAll(scan: PageScan, network: string, count: number): Promise<OpenStream[]> {
    const streams: OpenStream[] = [];
    for (let i = 0; i < count; i++) streams.push(await watch(scan, network));
    assert.deepEqual(
      streams.map((s) => s.status),
      streams.map(() => 200),
    );
    return streams;
  }

  const refusedFor = async (stream: OpenStream, bound: 'scan' | 'network') => {
    assert.equal(stream.res.headers.get('retry-after'), '30');
    await assertRefusal(stream.res, 429, 'rate_limited', streamBoundWords(bound, BOUNDS));
  };

  /** The façade sees a closed stream a moment later: asks again until it answers 200. */
  async function watchOnceFreed(scan: PageScan, network: string): Promise<OpenStream> {
    for (let tries = 0; ; tries++) {
      const stream = await watch(scan, network);
      if (stream.status === 200 || tries === 50) return stream;
      await stream.res.text();
      await sleep(100);
    }
  }

  it('a scan’s fifth stream is refused with 429 from any network, while another scan’s stream is served', async () => {
    const scan = await pageScan(stack.baseUrl);
    const other = await pageScan(stack.baseUrl);
    await watchAll(scan, '203.0.113.1', BOUNDS.perScan);
    await refusedFor(await watch(scan, '203.0.113.1'), 'scan');
    await refusedFor(await watch(scan, '203.0.113.2'), 'scan');
    assert.equal((await watch(other, '203.0.113.1')).status, 200);
    assert.equal((await watch(other, '203.0.113.2')).status, 200);
  });

  it('a network’s seventh stream is refused; slots come back when the page goes, the scan completes, it is deleted or core refuses it', async () => {
    const [c, d, e] = [
      await pageScan(stack.baseUrl),
      await pageScan(stack.baseUrl),
      await pageScan(stack.baseUrl),
    ];
    const net = '198.51.100.7';
    const onC = await watchAll(c, net, 4);
    await watchAll(d, net, 2);
    await refusedFor(await watch(e, net), 'network');
    assert.equal((await watch(e, '198.51.100.8')).status, 200, 'another network is served');

    onC[0]!.close(); // the page goes away
    assert.equal((await watchOnceFreed(e, net)).status, 200);
    await refusedFor(await watch(e, net), 'network');

    await completeScan(stack.orm, c.run_id, RED_ACNE_SCORES); // c's three streams end with it
    for (const stream of onC.slice(1)) assert.match(await stream.rest, /"status":"complete"/);
    const onD = await watchAll(d, net, 2);
    await callTool(stack.baseUrl, 'delete_skin_scan', { run_id: d.run_id, access_token: d.access_token });
    for (const stream of onD) assert.match(await stream.rest, /^event: gone\n/m);

    // Refused by core (not this scan's browser): no slot kept, or the scan's fifth would be a 429.
    for (let i = 0; i < BOUNDS.perScan + 1; i++) {
      const refused = await watch(e, net, 'cd'.repeat(32));
      await assertRefusal(
        refused.res,
        403,
        'not_consenting_browser',
        REFUSALS.not_consenting_browser.message,
      );
    }
    // What the network holds now: e's one, so five more are served and the sixth is refused.
    const f = await pageScan(stack.baseUrl);
    await watchAll(f, net, 4);
    await watchAll(e, net, 1);
    await refusedFor(await watch(e, net), 'network');
  });

  it('core’s own bound, reached from many networks, is a 503 counted in a metric, not an error line', async () => {
    const logged = readFileSync(stack.logFile, 'utf8').length;
    const coreRefusals = async () =>
      (await pageStreamsRefused.get()).values.find((v) => v.labels.bound === 'core')?.value ?? 0;
    const before = await coreRefusals();
    // Four streams from each of three networks: core's tenth watch is its last (fewer if it still holds one
    // of an earlier test's).
    let late: OpenStream | undefined;
    let scan = await pageScan(stack.baseUrl);
    for (let i = 0; i < 12 && !late; i++) {
      if (i > 0 && i % 4 === 0) scan = await pageScan(stack.baseUrl);
      const stream = await watch(scan, `192.0.2.${(i >> 2) + 1}`);
      if (stream.status !== 200) late = stream;
    }
    assert.ok(late, 'core refused a watch');
    await assertRefusal(late.res, 503, 'unavailable', REFUSALS.unavailable.message);
    assert.equal(await coreRefusals(), before + 1);
    // What follows the last newline is a line still being written.
    const lines = readFileSync(stack.logFile, 'utf8').slice(logged).split('\n').slice(0, -1).filter(Boolean);
    const loud = lines.map((line) => JSON.parse(line)).filter((line) => line.level >= 40);
    assert.deepEqual(loud, []);
  });
});

describe('the progress relay’s slots', () => {
  /** A façade relaying `watchIntake` with these bounds; answers its URL, the slots and how often core was asked. */
  async function serveRelay(
    bounds: StreamBounds,
    watchIntake: (signal: AbortSignal) => AsyncIterable<object>,
  ) {
    const calls = { count: 0 };
    const core = createRouterTransport(({ service }) =>
      service(IntakeService, {
        watchIntake: (_req, ctx) => {
          calls.count++;
          return watchIntake(ctx.signal) as never;
        },
      }),
    );
    const slots = new StreamSlots(bounds);
    const refused: string[] = [];
    const relay = {
      intake: createClient(IntakeService, core),
      logger: pino({ level: 'silent' }),
      keepAliveMs: 60_000,
      refuse: () => assert.fail('not refused by core'),
      slots,
      refuseSlot: (ctx: Koa.Context, refusal: string) => {
        refused.push(refusal);
        ctx.status = 429;
      },
    };
    const app = new Koa();
    app.use((ctx) => relayEvents(relay, ctx, 'run', 'secret'));
    const server = createServer(app.callback());
    await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
    after(() => {
      server.closeAllConnections();
      server.close();
    });
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, slots, calls, refused };
  }

  const waiting = { status: 1, consented: true, isConsentingBrowser: true };
  async function* untilAborted(signal: AbortSignal) {
    yield { state: waiting };
    await new Promise((done) => signal.addEventListener('abort', done));
  }

  it('past a bound the stream is refused without asking core', async () => {
    const relay = await serveRelay({ perScan: 1, perNetwork: 5, lifetimeMs: 60_000 }, untilAborted);
    const stop = new AbortController();
    const first = await fetch(relay.url, { signal: stop.signal });
    assert.equal(first.status, 200);
    const second = await fetch(relay.url);
    assert.equal(second.status, 429);
    assert.deepEqual(relay.refused, ['scan']);
    assert.equal(relay.calls.count, 1);
    stop.abort();
    for (let waited = 0; relay.slots.open > 0 && waited < 3000; waited += 50) await sleep(50);
    assert.equal(relay.slots.open, 0);
  });

  it('past its lifetime the stream ends with `renew`, its slot given back', async () => {
    const relay = await serveRelay({ perScan: 1, perNetwork: 1, lifetimeMs: 300 }, untilAborted);
    const text = await (await fetch(relay.url)).text();
    assert.match(text, /^event: state\n.*\n\nevent: renew\ndata: \{\}\n\n$/s);
    assert.equal(relay.slots.open, 0);
    assert.equal((await fetch(relay.url)).status, 200, 'the page’s next stream is served');
  });

  it('a stream core ends with an error gives its slot back', async () => {
    const relay = await serveRelay({ perScan: 1, perNetwork: 1, lifetimeMs: 60_000 }, async function* () {
      yield { state: waiting };
      throw new Error('core went away');
    });
    assert.match(await (await fetch(relay.url)).text(), /^event: state\n/);
    assert.equal(relay.slots.open, 0);
  });
});
