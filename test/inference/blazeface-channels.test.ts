/**
 * The BlazeFace files are rewritten at load with their inner channels aligned (blazeface-channels.ts), so
 * that onnxruntime runs them in blocked layout without most zero-channel paddings, with the same sums:
 * every output value as the files as shipped give it, to the bit (onnxruntime 1.30, this x86-64 build).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fromBinary } from '@bufbuild/protobuf';
import { ModelProtoSchema } from 'onnx-buf';
import * as ort from 'onnxruntime-node';
import sharp from 'sharp';
import { alignChannels } from '../../services/inference/blazeface-channels.ts';
import { decodeImage } from '../../services/inference/decode.ts';
import { FaceDetector, MODEL_DIR, sampleView } from '../../services/inference/face-detector.ts';
import { singleFace } from './support/photos.ts';

/** Each file, its input's side, and the paddings left (the front model's 42-channel block is kept as shipped). */
const FILES = [
  ['face_detection_front_128x128_barracuda.onnx', 128, 1],
  ['face_detection_back_256x256_barracuda.onnx', 256, 0],
] as const;
const OPTIONS = { intraOpNumThreads: 1, logSeverityLevel: 3 } as const;

/** How many zero-channel paddings (ConstantOfShape) a model's bytes hold. */
function paddings(bytes: Uint8Array): number {
  return fromBinary(ModelProtoSchema, bytes).graph!.node.filter((n) => n.opType === 'ConstantOfShape').length;
}

describe("BlazeFace's channels aligned at load", function () {
  this.timeout(300_000);

  it('gives onnxruntime both files rewritten, without their paddings but one', async () => {
    const created: unknown[] = [];
    const create = ort.InferenceSession.create;
    ort.InferenceSession.create = ((model: unknown, ...rest: unknown[]) => {
      created.push(model);
      return (create as (...args: unknown[]) => Promise<ort.InferenceSession>)(model, ...rest);
    }) as typeof create;
    let detector: FaceDetector;
    try {
      detector = await FaceDetector.load();
    } finally {
      ort.InferenceSession.create = create;
    }
    await detector.release();
    assert.equal(created.length, FILES.length);
    for (const [k, [file, , left]] of FILES.entries()) {
      const model = created[k];
      assert.ok(model instanceof Uint8Array, `${file}: the rewritten bytes, not the file`);
      assert.ok(paddings(readFileSync(`${MODEL_DIR}${file}`)) > left);
      assert.equal(paddings(model), left, file);
    }
  });

  it('answers as the files as shipped, to the bit, on faces and their mirror images', async () => {
    const photos = await Promise.all(
      (['a', 'b', 'c'] as const).map(async (name) => {
        const face = await singleFace(name);
        return [face, await sharp(face).flop().jpeg({ quality: 95 }).toBuffer()];
      }),
    );
    for (const [file, size] of FILES) {
      const bytes = readFileSync(`${MODEL_DIR}${file}`);
      const shipped = await ort.InferenceSession.create(bytes, OPTIONS);
      const aligned = await ort.InferenceSession.create(alignChannels(bytes), OPTIONS);
      for (const photo of photos.flat()) {
        const image = await decodeImage(photo);
        const side = Math.max(image.width, image.height);
        const box = { x: (image.width - side) / 2, y: (image.height - side) / 2, w: side, h: side };
        const pixels = sampleView(image, box, size, new Float32Array(size * size * 3));
        const feeds = { 'input:0': new ort.Tensor('float32', pixels, [1, size, size, 3]) };
        const before = await shipped.run(feeds);
        const after = await aligned.run(feeds);
        for (const name of shipped.outputNames) {
          const was = before[name]!.data as Float32Array;
          const now = after[name]!.data as Float32Array;
          assert.deepEqual(after[name]!.dims, before[name]!.dims);
          const differ = was.filter((v, i) => !Object.is(v, now[i])).length;
          assert.equal(differ, 0, `${file} ${name}: ${differ} of ${was.length} values differ`);
        }
      }
      await Promise.all([shipped.release(), aligned.release()]);
    }
  });
});
