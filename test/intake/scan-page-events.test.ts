/**
 * GET /scan/:id/events: live progress from core's WatchIntake stream as server-sent events, with a real
 * inference process analysing the photo the page sent (slowed, so that the analysis outlasts the façade's
 * per-call deadline and shows its stages). The stream ends with the analysis, says `gone` when the scan is
 * deleted, and its call to core is cancelled when the browser goes away.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, createRouterTransport } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import Koa from 'koa';
import pino from 'pino';
import { relayEvents } from '../../facade/pages/page-events.ts';
import { StreamSlots } from '../../facade/pages/page-streams.ts';
import { IntakeService } from '../../gen/skinmatch/v1/intake_pb.ts';
import { freePort, waitForPort } from '../../scripts/port.ts';
import { InferenceAnalyzer } from '../../services/scan/inference-analyzer.ts';
import { FAILURE_MESSAGES } from '../../services/shared/failure-messages.ts';
import { groupPhoto, singleFace } from '../inference/support/photos.ts';
import { callTool, untilScan } from '../support/mcp.ts';
import { AWAITING_PHOTO } from '../support/page-states.ts';
import { type Stack, startStack } from '../support/stack.ts';
import { assertRefusal, pageFetch, pageScan, postPhoto } from './scan-page-support.ts';

/** Five stages of 600 ms: one slowed analysis takes over 3 s. */
const STAGE_DELAY_MS = 600;
/**
 * The façade's deadline on each call to core: shorter than one slowed analysis, long enough for the photo's
 * upload (checked and re-encoded by core) on a loaded machine — at 1 s, one loaded run's upload missed it.
 */
const CORE_TIMEOUT_MS = 2500;

interface SseEvent {
  readonly event: string;
  readonly data: any;
}

/** Reads a server-sent event stream to its end; `comments` counts keep-alive lines. */
async function readEvents(res: Response, onEvent: (e: SseEvent) => void = () => {}) {
  const events: SseEvent[] = [];
  let comments = 0;
  let text = '';
  const decoder = new TextDecoder();
  for await (const chunk of res.body!) {
    text += decoder.decode(chunk, { stream: true });
    let end = text.indexOf('\n\n');
    while (end >= 0) {
      const block = text.slice(0, end);
      text = text.slice(end + 2);
      end = text.indexOf('\n\n');
      if (block.startsWith(':')) {
        comments++;
        continue;
      }
      const fields = Object.fromEntries(block.split('\n').map((line) => line.split(/: (.*)/s, 2)));
      const event = { event: fields.event, data: JSON.parse(fields.data) };
      events.push(event);
      onEvent(event);
    }
  }
  return { events, comments, rest: text };
}

describe('the upload page’s live progress: /scan/:id/events', function () {
  this.timeout(90_000);
  let stack: Stack;
  let inference: ChildProcess;

  before(async () => {
    const port = await freePort();
    inference = spawn(process.execPath, ['services/inference/main.ts'], {
      env: { ...process.env, INFERENCE_PORT: String(port), INFERENCE_STAGE_DELAY_MS: String(STAGE_DELAY_MS) },
      stdio: 'ignore',
    });
    if (!(await waitForPort(port, 30_000))) throw new Error('inference did not start');
    const transport = createConnectTransport({ baseUrl: `http://127.0.0.1:${port}`, httpVersion: '2' });
    stack = await startStack('scan-page-events', {
      analyzer: new InferenceAnalyzer(transport, 20_000),
      coreTimeoutMs: CORE_TIMEOUT_MS,
      facade: { pageKeepAliveMs: 250 },
    });
  });
  after(async () => {
    inference?.kill('SIGKILL');
    await stack?.close();
  });

  /** Opens the stream, sends the photo once the first state is in, and reads the stream to its end. */
  async function watchUpload(photo: Buffer, onState: (state: any) => void = () => {}) {
    const scan = await pageScan(stack.baseUrl);
    const started = performance.now();
    const res = await pageFetch(stack.baseUrl, `/scan/${scan.run_id}/events`, { secret: scan.secret });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    let sent: Promise<Response> | undefined;
    const read = await readEvents(res, (e) => {
      sent ??= postPhoto(stack.baseUrl, scan.run_id, photo, { secret: scan.secret });
      onState(e.data);
    });
    assert.equal((await sent)?.status, 202);
    return { scan, ...read, ms: performance.now() - started };
  }

  it('relays awaiting_upload → queued → analyzing (stage and percent) → complete from a real analysis, then ends', async () => {
    // Both of the worker's slots busy, so that this scan's photo waits its turn: `queued` is seen for sure.
    // Inference paused until the stream has shown it queued keeps them busy however long a loaded machine
    // takes to store the photos (with 3 s of analysis each, a slot could free first and take this photo
    // straight to `analyzing`). Never shown queued: inference goes on after 15 s and the check below fails.
    inference.kill('SIGSTOP');
    const resume = () => inference.kill('SIGCONT');
    const fallback = setTimeout(resume, 15_000);
    const { scan, events, comments, rest, ms } = await (async () => {
      const busy = [await pageScan(stack.baseUrl), await pageScan(stack.baseUrl)];
      for (const other of busy) {
        const sent = await postPhoto(stack.baseUrl, other.run_id, await singleFace('c'), {
          secret: other.secret,
        });
        assert.equal(sent.status, 202);
      }
      for (const other of busy) {
        const agentScan = { run_id: other.run_id, access_token: other.access_token };
        await untilScan(stack.baseUrl, agentScan, (s) => s.status === 'analyzing');
      }
      return watchUpload(await singleFace('b'), (state) => state.status === 'queued' && resume());
    })().finally(() => {
      clearTimeout(fallback);
      resume();
    });
    assert.ok(ms > CORE_TIMEOUT_MS, 'the stream outlived the façade’s per-call deadline');
    assert.equal(rest, '');
    assert.ok(events.every((e) => e.event === 'state'));
    const states = events.map((e) => e.data);
    assert.deepEqual(states[0], AWAITING_PHOTO);
    assert.equal(states[1].status, 'queued');
    const analyzing = states.filter((s) => s.status === 'analyzing');
    assert.ok(analyzing.length >= 3, JSON.stringify(states));
    const stages = new Set(analyzing.map((s) => s.stage));
    for (const stage of ['detecting_face', 'checking_quality', 'measuring'])
      assert.ok(stages.has(stage), stage);
    const percents = analyzing.map((s) => s.progress);
    assert.deepEqual(
      percents,
      [...percents].sort((a, b) => a - b),
      'progress only grows',
    );
    assert.ok(percents.some((p) => p > 0 && p < 100));
    assert.deepEqual(states.at(-1), { ...states[0], status: 'complete', progress: 100 });
    assert.ok(comments >= 1, 'keep-alive comments while the analysis runs');
    // The agent sees the same end.
    const agent = await callTool(stack.baseUrl, 'get_skin_scan', {
      run_id: scan.run_id,
      access_token: scan.access_token,
    });
    assert.equal(agent.structuredContent.status, 'complete');
  });

  it('a failed analysis ends the stream with the reason and words the person can act on', async () => {
    const { events } = await watchUpload(groupPhoto(3));
    const last = events.at(-1)!;
    assert.equal(last.event, 'state');
    assert.equal(last.data.status, 'failed');
    assert.equal(last.data.failure_reason, 'several_faces');
    assert.equal(last.data.failure_message, FAILURE_MESSAGES.several_faces);
  });

  it('says gone and ends when the scan is deleted while the page watches', async () => {
    const scan = await pageScan(stack.baseUrl);
    const res = await pageFetch(stack.baseUrl, `/scan/${scan.run_id}/events`, { secret: scan.secret });
    const { events } = await readEvents(res, (e) => {
      if (e.event === 'state') {
        void callTool(stack.baseUrl, 'delete_skin_scan', {
          run_id: scan.run_id,
          access_token: scan.access_token,
        });
      }
    });
    assert.deepEqual(
      events.map((e) => e.event),
      ['state', 'gone'],
    );
    assert.deepEqual(events[1]!.data, {});
    await assertRefusal(
      await pageFetch(stack.baseUrl, `/scan/${scan.run_id}/events`, { secret: scan.secret }),
      404,
      'not_found',
      'This scan does not exist or has expired. Ask your assistant for a new link.',
    );
  });
});

describe('the progress relay ends with the browser', () => {
  it('cancels its call to core when the page goes away', async () => {
    let cancelled: (reason: unknown) => void = () => {};
    const cancel = new Promise((done) => {
      cancelled = done;
    });
    const core = createRouterTransport(({ service }) =>
      service(IntakeService, {
        async *watchIntake(_req, ctx) {
          yield { state: { status: 1, consented: true, isConsentingBrowser: true } };
          await new Promise((done) => ctx.signal.addEventListener('abort', done));
          cancelled(ctx.signal.reason);
        },
      }),
    );
    const app = new Koa();
    const relay = {
      intake: createClient(IntakeService, core),
      logger: pino({ level: 'silent' }),
      keepAliveMs: 60_000,
      refuse: () => assert.fail('not refused'),
      slots: new StreamSlots(),
      refuseSlot: () => assert.fail('not refused'),
    };
    app.use((ctx) => relayEvents(relay, ctx, 'run', 'secret'));
    const server = createServer(app.callback());
    await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
    try {
      const stop = new AbortController();
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, {
        signal: stop.signal,
      });
      const reader = res.body!.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      assert.match(first, /^event: state\ndata: \{"status":"awaiting_upload"/);
      stop.abort();
      const outcome = await Promise.race([
        cancel,
        new Promise((r) => setTimeout(() => r('still watching'), 3000)),
      ]);
      assert.notEqual(outcome, 'still watching');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('cancels its call to core when the page goes away before the first state', async () => {
    // Seen in the browser: a page left (a reload, another link) while its stream waited for the first state
    // kept core's WatchIntake running until the scan ended; with no analysis that was forever.
    let reached = () => {};
    const inCore = new Promise<void>((done) => (reached = done));
    let release = () => {};
    const gate = new Promise<void>((done) => (release = done));
    let cancelled = () => {};
    const cancel = new Promise<void>((done) => (cancelled = done));
    const core = createRouterTransport(({ service }) =>
      service(IntakeService, {
        async *watchIntake(_req, ctx) {
          reached();
          await gate;
          if (!ctx.signal.aborted) {
            yield { state: { status: 1, consented: true, isConsentingBrowser: true } };
            await new Promise((done) => ctx.signal.addEventListener('abort', done));
          }
          cancelled();
        },
      }),
    );
    const app = new Koa();
    const relay = {
      intake: createClient(IntakeService, core),
      logger: pino({ level: 'silent' }),
      keepAliveMs: 60_000,
      refuse: () => assert.fail('nobody to answer'),
      slots: new StreamSlots(),
      refuseSlot: () => assert.fail('nobody to answer'),
    };
    app.use((ctx) => relayEvents(relay, ctx, 'run', 'secret'));
    const server = createServer(app.callback());
    await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
    try {
      const stop = new AbortController();
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const request = fetch(url, { signal: stop.signal }).catch(() => 'aborted');
      await inCore;
      stop.abort();
      assert.equal(await request, 'aborted');
      await new Promise((r) => setTimeout(r, 200)); // the façade sees the connection close
      release();
      const outcome = await Promise.race([
        cancel.then(() => 'cancelled'),
        new Promise((r) => setTimeout(() => r('still watching'), 3000)),
      ]);
      assert.equal(outcome, 'cancelled');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
