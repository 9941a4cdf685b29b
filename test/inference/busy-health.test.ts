/**
 * Inference's grpc.health.v1 while it is busy and while it is stuck, through a real inference process.
 * Busy: the self-check every Check ran waited behind the analyses' ONNX and sharp work under a 1 s bound,
 * so a busy process answered NOT_SERVING (2–3 of 15 checks with two 12 MP analyses at once); core then
 * called inference down and the chart's liveness probe could restart it mid-analysis. Now SERVING
 * throughout. Stuck: an analysis that does not move on for INFERENCE_STALL_MS (simulated with a stage
 * delay longer than it) makes the overall status, `readiness` and `liveness` NOT_SERVING, and all is
 * SERVING again once that work is gone.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import sharp from 'sharp';
import { Health, HealthCheckResponse_ServingStatus as Status } from '../../gen/grpc/health/v1/health_pb.ts';
import { InferenceService } from '../../gen/skinmatch/inference/v1/inference_pb.ts';
import { type RunningProcess, startProcess, stopAll, until } from '../support/processes.ts';
import { singleFace } from './support/photos.ts';

const CHECKS = ['', 'readiness', 'liveness'] as const;
const NAMES = new Map<number, string>(Object.entries(Status).map(([name, value]) => [value, name]));

describe('inference health, busy and stuck, through a real inference process', function () {
  this.timeout(180_000);
  const running = new Set<RunningProcess>();
  const start = async (env: NodeJS.ProcessEnv) => {
    const inference = await startProcess('inference', { INFERENCE_METRICS_PORT: '0', ...env });
    running.add(inference);
    const transport = (url: string) => createConnectTransport({ baseUrl: url, httpVersion: '2' });
    // Health on a connection of its own, as the kubelet asks it.
    const health = createClient(Health, transport(inference.url));
    /** Each check's status by name, or the error code a service it does not know answers. */
    const statuses = () =>
      Promise.all(
        CHECKS.map((service) =>
          health.check({ service }, { timeoutMs: 3000 }).then(
            ({ status }) => NAMES.get(status) ?? String(status),
            (err) => Code[ConnectError.from(err).code],
          ),
        ),
      );
    return { inference, statuses, analyses: createClient(InferenceService, transport(inference.url)) };
  };
  after(() => stopAll(running));

  it('answers SERVING to every check every 300 ms while six 12 MP analyses run at once, three times over', async () => {
    const { statuses, analyses } = await start({});
    const face = await singleFace('b');
    const photo = await sharp(face)
      .resize(4000, 3000, { fit: 'contain', background: '#776655' })
      .jpeg({ quality: 90 })
      .toBuffer();
    const analyse = async () => {
      let last = '';
      for await (const message of analyses.analyzeFace({ image: photo })) last = message.event.case ?? '';
      return last;
    };
    let busy = true;
    const seen: string[][] = [];
    const checking = (async () => {
      while (busy) {
        seen.push(await statuses());
        await sleep(300);
      }
    })();
    // Each of the six keeps analysing, three times at least, until ten checks were answered while busy
    // (on a quiet machine eighteen analyses can end within two checks).
    const keepBusy = async () => {
      const ends: string[] = [];
      while (ends.length < 3 || seen.length < 10) ends.push(await analyse());
      return ends;
    };
    const ends = await Promise.all(Array.from({ length: 6 }, keepBusy)).finally(() => {
      busy = false;
    });
    await checking;
    assert.ok(ends.flat().length >= 18, 'six analyses at once, three times over');
    assert.deepEqual(new Set(ends.flat()), new Set(['result']), 'every analysis ran to its result');
    assert.ok(seen.length >= 10, `${seen.length} checks while busy`);
    const notServing = seen.filter((answer) => answer.some((status) => status !== 'SERVING'));
    assert.deepEqual(notServing, [], `of ${seen.length} checks`);
  });

  it('says NOT_SERVING, liveness too, once an analysis has not moved on for INFERENCE_STALL_MS; SERVING once it is gone', async () => {
    // Stages of 4 s against a stall bound of 1.5 s: an analysis that looks stuck between its stages.
    const { statuses, analyses } = await start({
      INFERENCE_STAGE_DELAY_MS: '4000',
      INFERENCE_STALL_MS: '1500',
    });
    assert.deepEqual(await statuses(), ['SERVING', 'SERVING', 'SERVING'], 'idle');
    const call = new AbortController();
    const analysis = (async () => {
      for await (const _ of analyses.analyzeFace({ image: await singleFace('a') }, { signal: call.signal }));
    })().catch((err) => Code[ConnectError.from(err).code]);
    const stuck = await until('the analysis seen stuck', async () => {
      const answer = await statuses();
      return answer.every((status) => status === 'NOT_SERVING') && answer;
    });
    assert.deepEqual(stuck, ['NOT_SERVING', 'NOT_SERVING', 'NOT_SERVING']);
    call.abort();
    assert.equal(await analysis, 'Canceled');
    const again = await until('SERVING again', async () => {
      const answer = await statuses();
      return answer.every((status) => status === 'SERVING') && answer;
    });
    assert.deepEqual(again, ['SERVING', 'SERVING', 'SERVING']);
  });
});
