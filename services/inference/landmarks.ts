/**
 * 68 facial landmarks (iBUG order: jaw 0–16, brows 17–26, nose 27–35, eyes 36–47, mouth 48–67; "right"
 * is the subject's right, on the left of a photo) from the face-api.js network converted to ONNX by
 * landmarks-graph/build.ts. The network reads an upright square crop around the BlazeFace box, turned by
 * the eye line, and the crop's mirror image; the two answers are averaged point by point (the mirror's
 * points swapped left for right), so a mirrored photo gets mirrored landmarks and the same scores.
 */
import * as ort from 'onnxruntime-node';
import { BufferPool } from './buffer-pool.ts';
import type { RgbImage } from './decode.ts';
import type { Face, Point } from './face.ts';
import {
  LANDMARK_COUNT,
  LANDMARKS_INPUT,
  LANDMARKS_INPUT_SIZE,
  LANDMARKS_MODEL_PATH,
  LANDMARKS_MODEL_VERSION,
  LANDMARKS_OUTPUT,
} from './landmarks-graph/build.ts';
import { fileVersion } from './model-version.ts';

export type Landmarks = readonly Point[];

/** The crop's side as a multiple of the BlazeFace box: the network was trained on boxes about this loose. */
const CROP_SCALE = 1.1;
/** Outside the photo the crop is filled with the network's mean colour, which reads as nothing. */
const FILL = [122.782, 117.001, 104.298];
/** Index of each point's mirror image (jaw, brows, nose, eyes, outer and inner lips). */
export const MIRROR: readonly number[] = [
  ...Array.from({ length: 17 }, (_, i) => 16 - i),
  ...[26, 25, 24, 23, 22, 21, 20, 19, 18, 17],
  ...[27, 28, 29, 30, 35, 34, 33, 32, 31],
  ...[45, 44, 43, 42, 47, 46, 39, 38, 37, 36, 41, 40],
  ...[54, 53, 52, 51, 50, 49, 48, 59, 58, 57, 56, 55],
  ...[64, 63, 62, 61, 60, 67, 66, 65],
];

export class FaceLandmarker {
  readonly #session: ort.InferenceSession;
  /** The network's input: the crop and its mirror, [2, 3, size, size]. */
  readonly #inputs = new BufferPool(2 * 3 * LANDMARKS_INPUT_SIZE * LANDMARKS_INPUT_SIZE);
  readonly version = fileVersion(LANDMARKS_MODEL_PATH, LANDMARKS_MODEL_VERSION);

  private constructor(session: ort.InferenceSession) {
    this.#session = session;
  }

  static async load(): Promise<FaceLandmarker> {
    const session = await ort.InferenceSession.create(LANDMARKS_MODEL_PATH, {
      intraOpNumThreads: 1,
      logSeverityLevel: 3,
    });
    return new FaceLandmarker(session);
  }

  /** Frees the model; locating fails from then on. */
  release(): Promise<void> {
    return this.#session.release();
  }

  /** The face's 68 landmarks in image pixels. */
  async locate(image: RgbImage, face: Face): Promise<Landmarks> {
    const crop = cropFrame(face);
    const size = LANDMARKS_INPUT_SIZE;
    const plane = size * size;
    const out = await this.#inputs.lend(async (input) => {
      sampleCrop(image, crop, input.subarray(0, 3 * plane));
      mirrorCrop(input.subarray(0, 3 * plane), input.subarray(3 * plane));
      const tensor = new ort.Tensor('float32', input, [2, 3, size, size]);
      return (await this.#session.run({ [LANDMARKS_INPUT]: tensor }))[LANDMARKS_OUTPUT]!.data as Float32Array;
    });
    const n = LANDMARK_COUNT * 2;
    return Array.from({ length: LANDMARK_COUNT }, (_, i) => {
      const m = MIRROR[i]!;
      const s = (out[2 * i]! + 1 - out[n + 2 * m]!) / 2;
      const t = (out[2 * i + 1]! + out[n + 2 * m + 1]!) / 2;
      return crop.toImage(s, t);
    });
  }
}

interface CropFrame {
  readonly centre: Point;
  /** Unit vectors of the crop's x (along the eye line) and y (down the face) axes in the image. */
  readonly u: Point;
  readonly v: Point;
  readonly side: number;
  /** From crop fractions (0..1 across and down) to image pixels. */
  toImage(s: number, t: number): Point;
}

function cropFrame(face: Face): CropFrame {
  const [right, left] = face.keypoints;
  const d = Math.hypot(left[0] - right[0], left[1] - right[1]) || 1;
  const u: Point = [(left[0] - right[0]) / d, (left[1] - right[1]) / d];
  const v: Point = [-u[1], u[0]];
  // The box is in edge coordinates (0 at the photo's left edge, BlazeFace's), the crop samples pixel
  // centres (pixel i at i): half a pixel apart. Left as it was, the crop of a mirrored photo lay a whole
  // pixel off the mirror image of the photo's crop, and its landmarks moved by up to 4 pixels.
  const centre: Point = [face.box.x + face.box.w / 2 - 0.5, face.box.y + face.box.h / 2 - 0.5];
  const side = Math.max(face.box.w, face.box.h) * CROP_SCALE;
  const toImage = (s: number, t: number): Point => {
    const a = (s - 0.5) * side;
    const b = (t - 0.5) * side;
    return [centre[0] + a * u[0] + b * v[0], centre[1] + a * u[1] + b * v[1]];
  };
  return { centre, u, v, side, toImage };
}

/**
 * The crop, bilinearly resampled to the network's input, RGB 0..255 channel-major. A sample's position
 * is centre + a·u + b·v, evaluated left to right as `toImage` does, with centre + a·u computed once per
 * column and b·v once per row.
 */
function sampleCrop(image: RgbImage, crop: CropFrame, out: Float32Array): void {
  const size = LANDMARKS_INPUT_SIZE;
  const { centre, u, v, side } = crop;
  const columnX = new Float64Array(size);
  const columnY = new Float64Array(size);
  for (let x = 0; x < size; x++) {
    const a = ((x + 0.5) / size - 0.5) * side;
    columnX[x] = centre[0] + a * u[0];
    columnY[x] = centre[1] + a * u[1];
  }
  for (let y = 0; y < size; y++) {
    const b = ((y + 0.5) / size - 0.5) * side;
    ROW_X[y] = b * v[0];
    ROW_Y[y] = b * v[1];
  }
  for (let y = 0; y < size; y++) sampleCropRow(image, columnX, columnY, ROW_X[y]!, ROW_Y[y]!, out, y * size);
}

/** The rows' offsets b·v of sampleCrop (it runs without awaiting). */
const ROW_X = new Float64Array(LANDMARKS_INPUT_SIZE);
const ROW_Y = new Float64Array(LANDMARKS_INPUT_SIZE);

/**
 * One row of sampleCrop's samples, from output pixel `o`; a sample outside the photo takes FILL. A function
 * of its own, called for every row, so that V8 compiles its loop whole (nested in sampleCrop, called twice
 * a photo, the loop ran as on-stack-replaced code).
 */
function sampleCropRow(
  image: RgbImage,
  columnX: Float64Array,
  columnY: Float64Array,
  rowX: number,
  rowY: number,
  out: Float32Array,
  o: number,
): void {
  const { data, width, height } = image;
  const plane = LANDMARKS_INPUT_SIZE * LANDMARKS_INPUT_SIZE;
  const stride = width * 3;
  for (let x = 0; x < columnX.length; x++) {
    const sx = columnX[x]! + rowX;
    const sy = columnY[x]! + rowY;
    if (sx < 0 || sy < 0 || sx > width - 1 || sy > height - 1) {
      out[o + x] = FILL[0]!;
      out[plane + o + x] = FILL[1]!;
      out[2 * plane + o + x] = FILL[2]!;
      continue;
    }
    const x0 = Math.min(width - 2, Math.floor(sx));
    const y0 = Math.min(height - 2, Math.floor(sy));
    const fx = sx - x0;
    const fy = sy - y0;
    const p = y0 * stride + x0 * 3;
    const q = p + stride;
    const r0 = data[p]! * (1 - fx) + data[p + 3]! * fx;
    const r1 = data[q]! * (1 - fx) + data[q + 3]! * fx;
    out[o + x] = r0 * (1 - fy) + r1 * fy;
    const g0 = data[p + 1]! * (1 - fx) + data[p + 4]! * fx;
    const g1 = data[q + 1]! * (1 - fx) + data[q + 4]! * fx;
    out[plane + o + x] = g0 * (1 - fy) + g1 * fy;
    const b0 = data[p + 2]! * (1 - fx) + data[p + 5]! * fx;
    const b1 = data[q + 2]! * (1 - fx) + data[q + 5]! * fx;
    out[2 * plane + o + x] = b0 * (1 - fy) + b1 * fy;
  }
}

/**
 * The crop's mirror image: its pixel x is the crop's pixel size−1−x, the very same sample, so it is
 * copied rather than sampled again.
 */
function mirrorCrop(crop: Float32Array, out: Float32Array): void {
  const size = LANDMARKS_INPUT_SIZE;
  for (let row = 0; row < 3 * size; row++) {
    const start = row * size;
    for (let x = 0; x < size; x++) out[start + x] = crop[start + size - 1 - x]!;
  }
}
