/**
 * `npm run bench:inference`: the face analysis against its floor, decoding the JPEG. For a 12-megapixel
 * photo and a 1920 px one: p50/p95 of decoding alone and of the whole pipeline, their ratio, and photos
 * per second with one and two worker threads. Then the time from a photo stored to `complete` visible in
 * get_skin_scan through the façade, with the real scan worker and inference service.
 * Targets: pipeline ≤ 2× decode; p50 under 150 ms at 12 MP; stored → complete p50 under 1 s. The same
 * ratio in process CPU time is printed too: on a loaded machine it moves less than wall-clock. So is the
 * ratio with decoding and the whole pipeline alternated round by round: the two phases above each see the
 * load of their own half minute, and on a shared machine it moves between them.
 */
import { Worker } from 'node:worker_threads';
import { createConnectTransport } from '@connectrpc/connect-node';
import { pino } from 'pino';
import { decodeImage, releaseImage } from '../../services/inference/decode.ts';
import { FaceAnalysis } from '../../services/inference/face-analysis.ts';
import { startInference } from '../../services/inference/inference-server.ts';
import { InferenceAnalyzer } from '../../services/scan/inference-analyzer.ts';
import { stopTestDatabaseServer } from '../support/database.ts';
import { uploadPhoto } from '../support/fixtures.ts';
import { callTool } from '../support/mcp.ts';
import { startStack } from '../support/stack.ts';
import { benchPhotos } from './bench-photos.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const photos = await benchPhotos();
const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor(p * (xs.length - 1))]!;
/** Wall-clock and process CPU time (every thread: libvips', onnxruntime's, the garbage collector's), ms. */
const time = async (work: () => Promise<unknown>) => {
  const times: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < 3; i++) await work();
  for (let i = 0; i < ROUNDS; i++) {
    const start = performance.now();
    const used = process.cpuUsage();
    await work();
    const { user, system } = process.cpuUsage(used);
    times.push(performance.now() - start);
    cpu.push((user + system) / 1000);
  }
  return Object.assign(times, { cpu });
};

/** `a` and `b` each ROUNDS times, one after the other in every round, in turns first (after 3 rounds each). */
const alternated = async (a: () => Promise<unknown>, b: () => Promise<unknown>) => {
  const first = Object.assign([] as number[], { cpu: [] as number[] });
  const second = Object.assign([] as number[], { cpu: [] as number[] });
  for (let i = 0; i < 3; i++) {
    await a();
    await b();
  }
  for (let i = 0; i < ROUNDS; i++) {
    const order: [() => Promise<unknown>, typeof first][] = [
      [a, first],
      [b, second],
    ];
    for (const [work, times] of i % 2 === 0 ? order : order.reverse()) {
      const start = performance.now();
      const used = process.cpuUsage();
      await work();
      const { user, system } = process.cpuUsage(used);
      times.push(performance.now() - start);
      times.cpu.push((user + system) / 1000);
    }
  }
  return [first, second] as const;
};

const analysis = await FaceAnalysis.load();
const whole = async (photo: Buffer) => {
  let last = '';
  for await (const event of analysis.analyze(photo)) last = event.kind;
  if (last !== 'result') throw new Error(`the bench photo did not analyse: ${last}`);
};
for (const [label, photo] of Object.entries(photos)) {
  // Decoding alone frees its image as the analysis does (releaseImage): left to the collector, the floor's
  // 2.4 MB images set off full collections that landed in the pipeline's rounds (0.7–0.9 ms a photo).
  const decodeAlone = async () => releaseImage(await decodeImage(photo));
  const decode = await time(decodeAlone);
  const pipeline = await time(() => whole(photo));
  console.log(`\n${label}, ${(photo.length / 1024).toFixed(0)} KiB JPEG, ${ROUNDS} rounds`);
  console.log(`  decode alone   p50 ${q(decode, 0.5).toFixed(1)} ms  p95 ${q(decode, 0.95).toFixed(1)} ms`);
  console.log(
    `  whole pipeline p50 ${q(pipeline, 0.5).toFixed(1)} ms  p95 ${q(pipeline, 0.95).toFixed(1)} ms`,
  );
  console.log(`  pipeline / decode: ${(q(pipeline, 0.5) / q(decode, 0.5)).toFixed(2)}× (target ≤ 2)`);
  // On a shared machine other processes stretch wall-clock times; CPU time is what this process spent.
  console.log(
    `  CPU time p50: decode ${q(decode.cpu, 0.5).toFixed(1)} ms, pipeline ${q(pipeline.cpu, 0.5).toFixed(1)} ms, ${(q(pipeline.cpu, 0.5) / q(decode.cpu, 0.5)).toFixed(2)}×`,
  );
  const [decodeAlternated, pipelineAlternated] = await alternated(decodeAlone, () => whole(photo));
  const ratio = (xs: number[], ys: number[]) => (q(ys, 0.5) / q(xs, 0.5)).toFixed(2);
  console.log(
    `  alternated round by round: decode p50 ${q(decodeAlternated, 0.5).toFixed(1)} ms, pipeline ${q(pipelineAlternated, 0.5).toFixed(1)} ms, ${ratio(decodeAlternated, pipelineAlternated)}× (CPU ${ratio(decodeAlternated.cpu, pipelineAlternated.cpu)}×)`,
  );
  for (const threads of [1, 2])
    console.log(`  ${threads} worker(s): ${(await throughput(photo, threads)).toFixed(1)} photos/s`);
}

async function throughput(photo: Buffer, threads: number): Promise<number> {
  const workers = await Promise.all(
    Array.from({ length: threads }, async () => {
      const worker = new Worker(new URL('./inference-worker.ts', import.meta.url));
      await new Promise((ready) => worker.once('message', ready));
      return worker;
    }),
  );
  const perWorker = 20;
  const start = performance.now();
  await Promise.all(
    workers.map(async (worker) => {
      for (let i = 0; i < perWorker; i++) {
        const done = new Promise((resolve) => worker.once('message', resolve));
        worker.postMessage(photo);
        await done;
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  await Promise.all(workers.map((w) => w.terminate()));
  return (threads * perWorker) / seconds;
}

// Stored → complete, end to end.
const inference = await startInference(0, pino({ level: 'silent' }), '127.0.0.1');
const transport = createConnectTransport({ baseUrl: `http://127.0.0.1:${inference.port}`, httpVersion: '2' });
const stack = await startStack('bench-inference', { analyzer: new InferenceAnalyzer(transport) });
const latencies: number[] = [];
for (let i = 0; i < 20; i++) {
  const started = (await callTool(stack.baseUrl, 'start_skin_scan', { source: 'bench' })).structuredContent;
  const scan = { run_id: started.run_id, access_token: started.access_token };
  const t = performance.now();
  await uploadPhoto(stack.orm, scan.run_id, photos['1920 px (1920×1440)']);
  for (;;) {
    const state = (await callTool(stack.baseUrl, 'get_skin_scan', scan)).structuredContent;
    if (state.status === 'complete') break;
    if (state.status === 'failed') throw new Error(state.failure_reason);
    await new Promise((r) => setTimeout(r, 10));
  }
  latencies.push(performance.now() - t);
}
console.log(
  `\nphoto stored → complete in get_skin_scan (1920 px, 20 scans): p50 ${q(latencies, 0.5).toFixed(0)} ms  p95 ${q(latencies, 0.95).toFixed(0)} ms (target p50 < 1000 ms)`,
);
await stack.close();
await inference.close();
await stopTestDatabaseServer();
