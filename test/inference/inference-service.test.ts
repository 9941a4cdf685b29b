import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { pino } from 'pino';
import { FaceAnalysis } from '../../services/inference/face-analysis.ts';
import { startInference } from '../../services/inference/inference-server.ts';
import type { RunningServer } from '../../services/shared/server.ts';
import { singleFace } from './support/photos.ts';

function load(file: string): any {
  const definition = protoLoader.loadSync(file, {
    includeDirs: [resolve('proto'), resolve('third_party/proto')],
    enums: String,
    defaults: true,
    oneofs: true,
  });
  return grpc.loadPackageDefinition(definition);
}

describe('InferenceService over gRPC (@grpc/grpc-js client)', function () {
  this.timeout(60_000);
  let server: RunningServer;
  let client: any;
  let target: string;

  before(async () => {
    server = await startInference(0, pino({ level: 'silent' }), '127.0.0.1');
    target = `127.0.0.1:${server.port}`;
    const { skinmatch } = load('skinmatch/inference/v1/inference.proto');
    client = new skinmatch.inference.v1.InferenceService(target, grpc.credentials.createInsecure());
  });
  after(async () => {
    client?.close();
    await server?.close();
  });

  const analyze = (image: Buffer) =>
    new Promise<any[]>((done, fail) => {
      const messages: any[] = [];
      const call = client.analyzeFace({ image });
      call.on('data', (m: any) => messages.push(m));
      call.on('error', fail);
      call.on('end', () => done(messages));
    });

  it('streams the stages in order, then exactly one result with scores, concerns, quality and model versions', async () => {
    const messages = await analyze(await singleFace('b'));
    const progress = messages.filter((m) => m.event === 'progress').map((m) => m.progress);
    assert.deepEqual(
      progress.map((p) => p.stage),
      [
        'STAGE_DECODING',
        'STAGE_DETECTING_FACE',
        'STAGE_CHECKING_QUALITY',
        'STAGE_MEASURING',
        'STAGE_SCORING',
      ],
    );
    const percents = progress.map((p) => p.percent);
    assert.deepEqual(
      [...percents].sort((a, b) => a - b),
      percents,
    );
    const finals = messages.filter((m) => m.event !== 'progress');
    assert.equal(finals.length, 1);
    assert.equal(messages.at(-1).event, 'result');
    const result = finals[0].result;
    assert.equal(result.scores.length, 10);
    for (const s of result.scores) assert.ok(s.score >= 0 && s.score <= 100, s.measure);
    assert.ok(result.concerns.length <= 6);
    assert.equal(result.quality.faces, 1);
    assert.deepEqual(result.models.map((m: any) => m.name).sort(), [
      'calibration',
      'face_detector',
      'face_landmarks',
      'skin_measures',
    ]);
    const measures = result.models.find((m: any) => m.name === 'skin_measures');
    assert.match(measures.version, /^skin-measures-\d+\.\d+\.\d+ sha256:[0-9a-f]{16}$/);
    const landmarks = result.models.find((m: any) => m.name === 'face_landmarks');
    assert.match(
      landmarks.version,
      /^face-landmarks-68-\S+ \(weights: @vladmandic\/face-api [\d.]+, MIT\) sha256:[0-9a-f]{16}$/,
    );
  });

  it('a file that is no image ends with one failure, not_an_image, and a message for the person', async () => {
    const messages = await analyze(Buffer.from('%PDF-1.7 not a photo'));
    const last = messages.at(-1);
    assert.equal(last.event, 'failure');
    assert.equal(last.failure.reason, 'not_an_image');
    assert.match(last.failure.message, /JPEG or PNG/);
    assert.equal(messages.filter((m) => m.event !== 'progress').length, 1);
  });

  it('an empty image (no bytes) ends with one failure, not_an_image (was INTERNAL)', async () => {
    const messages = await analyze(Buffer.alloc(0));
    const last = messages.at(-1);
    assert.equal(last.event, 'failure');
    assert.equal(last.failure.reason, 'not_an_image');
    assert.equal(messages.filter((m) => m.event !== 'progress').length, 1);
  });

  it('serves its own grpc.health.v1: SERVING', async () => {
    const { grpc: pkg } = load('grpc/health/v1/health.proto');
    const health = new pkg.health.v1.Health(target, grpc.credentials.createInsecure());
    const res: any = await new Promise((done, fail) =>
      health.check({ service: 'skinmatch.inference.v1.InferenceService' }, (e: Error | null, r: unknown) =>
        e ? fail(e) : done(r),
      ),
    );
    health.close();
    assert.equal(res.status, 'SERVING');
  });

  it('its health follows the models: NOT_SERVING once they no longer answer', async () => {
    const analysis = await FaceAnalysis.load();
    const own = await startInference(0, pino({ level: 'silent' }), '127.0.0.1', {}, analysis);
    const { grpc: pkg } = load('grpc/health/v1/health.proto');
    const health = new pkg.health.v1.Health(`127.0.0.1:${own.port}`, grpc.credentials.createInsecure());
    const check = () =>
      new Promise<any>((done, fail) =>
        health.check({ service: 'skinmatch.inference.v1.InferenceService' }, (e: Error | null, r: unknown) =>
          e ? fail(e) : done(r),
        ),
      );
    try {
      assert.equal((await check()).status, 'SERVING');
      await analysis.close();
      assert.equal((await check()).status, 'NOT_SERVING');
    } finally {
      health.close();
      await own.close();
    }
  });
});
