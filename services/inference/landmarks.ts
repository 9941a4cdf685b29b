/**
 * 68 facial landmarks (iBUG order: jaw 0–16, brows 17–26, nose 27–35, eyes 36–47, mouth 48–67; "right"
 * is the subject's right, on the left of a photo) from the face-api.js network converted to ONNX by
 * landmarks-graph/build.ts. The network reads an upright square crop around the BlazeFace box, turned by
 * the eye line, and the crop's mirror image; the two answers are averaged point by point (the mirror's
 * points swapped left for right), so a mirrored photo gets mirrored landmarks and the same scores. Small
 * dark marks on the cheeks are filled in before the network reads the crop (fillCheekMarks).
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
      fillCheekMarks(input.subarray(0, 3 * plane), face, crop);
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

export interface CropFrame {
  readonly centre: Point;
  /** Unit vectors of the crop's x (along the eye line) and y (down the face) axes in the image. */
  readonly u: Point;
  readonly v: Point;
  readonly side: number;
  /** From crop fractions (0..1 across and down) to image pixels. */
  toImage(s: number, t: number): Point;
}

export function cropFrame(face: Face): CropFrame {
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
    // Truncation is the floor here: sx and sy are 0 or more (NaN, untested above, gives NaN either way).
    const x0 = Math.min(width - 2, sx | 0);
    const y0 = Math.min(height - 2, sy | 0);
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

/**
 * The cheeks hold no landmark, and a mark on them — a brown spot, a mole, a pimple — is skin, not a
 * feature; but the network answered such marks by moving every point: twelve brown spots on the cheeks
 * moved the lower lids up by up to 0.019 eye distances, and the region under the eyes with them, up the
 * steep rise of lightness below the lid (dark spots moved dark circles by 7 points; docs/inference.md). So,
 * before the network reads the crop, the middle of each cheek is closed (a MARK_CLOSING square's maximum,
 * then its minimum, channel by channel), which fills in dark details narrower than the square — at the
 * crop's scale, about 0.12 eye distances (7 mm) — from the skin around them, and leaves shading, edges and
 * wider patches as they were. Only marks: a value moves towards its closing only where it lies more than
 * MARK_DEPTH[0] levels (of 255) below it, fully from MARK_DEPTH[1]; skin without marks is left as it is.
 * Each cheek is an ellipse with CHEEK_RADII (eye distances, across and down) around a point CHEEK_AT from
 * BlazeFace's eye keypoint, blended out over CHEEK_EDGE more of its radii: from 0.29 to 0.71 eye distances
 * below the eyes, clear of the region under the eyes and a glasses' lower rim above it, of the side of the
 * nose, of the mouth and of the face's outline (its widest reach, 0.79 eye distances out from the middle of
 * the eyes, is inside the jaw of the narrowest edit face, 0.85). The same on both sides, so a mirrored
 * photo's crop is still the mirror image of the photo's.
 */
const CHEEK_AT = { out: 0.06, down: 0.5 } as const;
const CHEEK_RADII = { across: 0.18, down: 0.16 } as const;
const CHEEK_EDGE = 0.3;
const MARK_CLOSING = 5;
const MARK_DEPTH = [8, 16] as const;

/** fillCheekMarks's working planes and each pixel's weight (it runs without awaiting). */
const MARKS_A = new Float32Array(LANDMARKS_INPUT_SIZE * LANDMARKS_INPUT_SIZE);
const MARKS_B = new Float32Array(LANDMARKS_INPUT_SIZE * LANDMARKS_INPUT_SIZE);
const IN_CHEEK = new Float64Array(LANDMARKS_INPUT_SIZE * LANDMARKS_INPUT_SIZE);

/** The crop (RGB 0..255, channel-major, as sampleCrop writes it) with the cheeks' marks filled in, in place. */
export function fillCheekMarks(crop: Float32Array, face: Face, frame: CropFrame): void {
  const size = LANDMARKS_INPUT_SIZE;
  const [right, left] = face.keypoints;
  // The eye distance in crop pixels, and a point of the image in crop pixel coordinates (pixel i at i).
  const d = (Math.hypot(left[0] - right[0], left[1] - right[1]) / frame.side) * size;
  const toCrop = (x: number, y: number): Point => {
    const dx = x - frame.centre[0];
    const dy = y - frame.centre[1];
    return [
      ((dx * frame.u[0] + dy * frame.u[1]) / frame.side + 0.5) * size - 0.5,
      ((dx * frame.v[0] + dy * frame.v[1]) / frame.side + 0.5) * size - 0.5,
    ];
  };
  const cheeks = [right, left].map((eye, side) => {
    // The keypoints are in edge coordinates, as the box is (cropFrame).
    const [x, y] = toCrop(eye[0] - 0.5, eye[1] - 0.5);
    return [x + (side === 0 ? -CHEEK_AT.out : CHEEK_AT.out) * d, y + CHEEK_AT.down * d] as const;
  });
  const rx = CHEEK_RADII.across * d;
  const ry = CHEEK_RADII.down * d;
  const reach = 1 + CHEEK_EDGE;
  const r = (MARK_CLOSING - 1) / 2;
  // Each cheek on its own rectangle (the two lie about 1.1 eye distances apart, far more than the closing).
  for (const [cx, cy] of cheeks) {
    const area = {
      top: Math.max(0, Math.floor(cy - reach * ry)),
      bottom: Math.min(size - 1, Math.ceil(cy + reach * ry)),
      left: Math.max(0, Math.floor(cx - reach * rx)),
      right: Math.min(size - 1, Math.ceil(cx + reach * rx)),
    };
    const { top, bottom, left: first, right: last } = area;
    if (top > bottom || first > last) continue;
    for (let y = top; y <= bottom; y++) {
      for (let x = first; x <= last; x++) {
        const q = Math.hypot((x - cx) / rx, (y - cy) / ry);
        IN_CHEEK[y * size + x] = Math.min(1, (reach - q) / CHEEK_EDGE);
      }
    }
    for (let c = 0; c < 3; c++) {
      const plane = crop.subarray(c * size * size, (c + 1) * size * size);
      // The closing, on no more than the area needs: each pass reads r rows or columns beyond those it writes.
      along(plane, MARKS_A, top - 2 * r, bottom + 2 * r, first - r, last + r, 1, r, true);
      along(MARKS_A, MARKS_B, top - r, bottom + r, first - r, last + r, size, r, true);
      along(MARKS_B, MARKS_A, top - r, bottom + r, first, last, 1, r, false);
      along(MARKS_A, MARKS_B, top, bottom, first, last, size, r, false);
      fillMarks(plane, MARKS_B, area);
    }
  }
}

/** Each value of the area moved towards its closing by its cheek weight times how far it is a mark. */
function fillMarks(
  plane: Float32Array,
  closed: Float32Array,
  area: { top: number; bottom: number; left: number; right: number },
): void {
  const size = LANDMARKS_INPUT_SIZE;
  const [shallow, deep] = MARK_DEPTH;
  for (let y = area.top; y <= area.bottom; y++) {
    for (let x = area.left; x <= area.right; x++) {
      const at = y * size + x;
      const inCheek = IN_CHEEK[at]!;
      if (inCheek <= 0) continue;
      const value = plane[at]!;
      const mark = Math.min(1, Math.max(0, (closed[at]! - value - shallow) / (deep - shallow)));
      const w = inCheek * mark;
      if (w > 0) plane[at] = value * (1 - w) + closed[at]! * w;
    }
  }
}

/**
 * The largest (`largest`) or smallest value within r pixels along rows (`step` 1) or columns (`step` size)
 * of `from`, into `to`, for rows top..bottom and columns left..right (clipped to the crop); the window is
 * cut at the crop's edge.
 */
function along(
  from: Float32Array,
  to: Float32Array,
  top: number,
  bottom: number,
  left: number,
  right: number,
  step: number,
  r: number,
  largest: boolean,
): void {
  const size = LANDMARKS_INPUT_SIZE;
  for (let y = Math.max(0, top); y <= Math.min(size - 1, bottom); y++) {
    for (let x = Math.max(0, left); x <= Math.min(size - 1, right); x++) {
      const at = step === 1 ? x : y;
      const centre = y * size + x;
      const from0 = centre + (Math.max(0, at - r) - at) * step;
      const to0 = centre + (Math.min(size - 1, at + r) - at) * step;
      let m = from[from0]!;
      if (largest) {
        for (let k = from0 + step; k <= to0; k += step) if (from[k]! > m) m = from[k]!;
      } else {
        for (let k = from0 + step; k <= to0; k += step) if (from[k]! < m) m = from[k]!;
      }
      to[centre] = m;
    }
  }
}
