/**
 * An analysis stream whose reader goes away, through a real inference process: core's job that fails on a
 * database write mid-stream cancels its call, and inference ends that analysis at once; a client that stops
 * reading without cancelling does not hold inference's shutdown past its bound. Either way SIGTERM then
 * exits 0 (the database-restart test shows the same with PostgreSQL stopped under a real core).
 */
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { create, toBinary } from '@bufbuild/protobuf';
import { Code, type ConnectError, createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { AnalyzeFaceRequestSchema, InferenceService } from '../../gen/skinmatch/inference/v1/inference_pb.ts';
import { InferenceAnalyzer } from '../../services/scan/inference-analyzer.ts';
import { type RunningProcess, startProcess, stopAll, until } from '../support/processes.ts';
import { singleFace } from './support/photos.ts';

const SHUTDOWN_TIMEOUT_MS = 5000;

describe('an analysis stream its reader leaves, through a real inference process', function () {
  this.timeout(90_000);
  const running = new Set<RunningProcess>();
  /** Stages of 1 s: five seconds of analysis, still under way when its reader leaves. */
  const startInference = async () => {
    const inference = await startProcess('inference', {
      INFERENCE_STAGE_DELAY_MS: '1000',
      INFERENCE_METRICS_PORT: '0',
      SHUTDOWN_DRAIN_DELAY_MS: '0',
      SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
    });
    running.add(inference);
    return inference;
  };
  const analyses = (inference: RunningProcess) =>
    inference.logged(/^rpc$/).filter((line) => String(line.procedure).endsWith('/AnalyzeFace'));
  /** SIGTERM: its exit code and how long it took. */
  const terminate = async (inference: RunningProcess) => {
    const started = performance.now();
    inference.signal('SIGTERM');
    const code = await inference.exited;
    return { code, ms: performance.now() - started };
  };
  after(() => stopAll(running));

  it("a job that fails mid-stream (a store write throws) cancels its call: inference's analysis ends, SIGTERM exits 0 at once", async () => {
    const inference = await startInference();
    const analyzer = new InferenceAnalyzer(
      createConnectTransport({ baseUrl: inference.url, httpVersion: '2' }),
      30_000,
    );
    const storeDown = new Error('connect ECONNREFUSED 127.0.0.1:5432');
    const events: string[] = [];
    const job = async () => {
      for await (const event of analyzer.analyze(await singleFace('a'), new AbortController().signal)) {
        events.push(event.kind);
        throw storeDown; // recording the progress failed: the database went away
      }
    };
    await assert.rejects(job(), storeDown);
    const left = performance.now();
    assert.deepEqual(events, ['progress']);

    // Once its next stage ends (1 s), long before the analysis would have (4 s more). The bounds leave a
    // loaded machine (CI, load 7-10) 2 s to run the inference process late, and still tell the two apart.
    const call = await until('inference sees the cancel', () => analyses(inference)[0], 10_000);
    assert.equal(call?.code, 'Canceled');
    assert.ok(performance.now() - left < 3000, `ended ${Math.round(performance.now() - left)} ms after`);
    const { code, ms } = await terminate(inference);
    assert.equal(code, 0, inference.output().slice(-600));
    assert.ok(ms < SHUTDOWN_TIMEOUT_MS - 1500, `stopped in ${Math.round(ms)} ms, not held to its bound`);
    assert.equal(analyses(inference).length, 1, 'the analysis did not go on for nobody');
  });

  it('a client on HTTP/1.1 that aborts mid-stream: the call ends Canceled, with no error logged', async () => {
    const inference = await startInference();
    const client = createClient(
      InferenceService,
      createConnectTransport({ baseUrl: inference.url, httpVersion: '1.1' }),
    );
    const abort = new AbortController();
    const call = client.analyzeFace({ image: await singleFace('a') }, { signal: abort.signal });
    const reading = (async () => {
      for await (const _ of call) abort.abort(); // its connection closes: HTTP/1.1 has no reset code
    })();
    await assert.rejects(reading, (err: ConnectError) => err.code === Code.Canceled);

    // Canceled, not an analysis run to its end (ok); waited for however late a loaded machine runs it.
    const line = await until('inference sees the client gone', () => analyses(inference)[0], 10_000);
    assert.equal(line?.code, 'Canceled');
    assert.deepEqual(inference.logged(/rpc failed/), [], 'a client gone is no failure of the service');
    assert.equal((await terminate(inference)).code, 0);
  });

  it('a client that stops reading without cancelling holds the shutdown no longer than its bound: exit 0', async () => {
    const inference = await startInference();
    const body = toBinary(
      AnalyzeFaceRequestSchema,
      create(AnalyzeFaceRequestSchema, { image: await singleFace('a') }),
    );
    const frame = Buffer.alloc(5 + body.length);
    frame.writeUInt32BE(body.length, 1);
    frame.set(body, 5);
    const session = http2.connect(inference.url);
    session.on('error', () => {}); // cut by inference at its bound
    try {
      const stream = session.request({
        ':method': 'POST',
        ':path': '/skinmatch.inference.v1.InferenceService/AnalyzeFace',
        'content-type': 'application/grpc',
        te: 'trailers',
      });
      stream.on('error', () => {});
      stream.end(frame);
      stream.pause(); // never read
      await until('the analysis answered', () => analyses(inference)[0], 20_000);

      const { code, ms } = await terminate(inference);
      assert.equal(code, 0, inference.output().slice(-600));
      assert.ok(ms < SHUTDOWN_TIMEOUT_MS, `stopped in ${Math.round(ms)} ms`);
      assert.equal(inference.logged(/^stopped$/).length, 1);
    } finally {
      session.destroy();
    }
  });
});
