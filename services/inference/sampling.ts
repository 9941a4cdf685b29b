/**
 * Resampling of image rectangles: a rotated rectangle of the photo to a small grid (area-averaged, so
 * shrinking does not alias texture), and bilinear enlargement of such a grid to a patch.
 *
 * Both run for every region of every photo, so what depends on one coordinate only (a sample's offset
 * along the rectangle's axes, a column's source position) is computed once per column or row, not once
 * per sample; the arithmetic and the order of every sum are the plain per-sample formulas' own, so the
 * results are the same to the bit.
 */
import type { RgbImage } from './decode.ts';

/**
 * A working buffer kept from photo to photo, so that a photo's temporaries are not each new garbage
 * (fewer full collections). Only for work that runs start to end without awaiting, during which no
 * other analysis can take it.
 */
export class Scratch {
  #values = new Float32Array(0);

  /** A view of n values, contents left from before, grown when it is too small. */
  take(n: number): Float32Array {
    if (this.#values.length < n) this.#values = new Float32Array(n);
    return this.#values.subarray(0, n);
  }
}

/** Where enlarge writes a patch: RGB pixel by pixel (the default), or as three planes divided by 255. */
export interface EnlargedLayout {
  /** Distance in `out` from one channel of a pixel to the next, and from one pixel to the next. */
  readonly channelStep: number;
  readonly pixelStep: number;
  /** Each value, rounded to float32, is divided by this (× 1/255 is ÷ 255 in float32: docs/inference.md). */
  readonly divisor: 1 | 255;
}

const PIXEL_BY_PIXEL: EnlargedLayout = { channelStep: 1, pixelStep: 3, divisor: 1 };

/** enlarge's input rows, each interpolated across to the output's columns (it runs without awaiting). */
const ACROSS = { values: new Float64Array(0) };

/**
 * Bilinear enlargement of a cols×rows RGB image to size×size, into `out` when given (pixel by pixel, or as
 * `layout` says). Separable: each input row is interpolated across once, into doubles, and each output row
 * blends the two rows it lies between — the very values the per-pixel formula computes, in the same order.
 */
export function enlarge(
  rgb: Float32Array,
  cols: number,
  rows: number,
  size: number,
  out: Float32Array = new Float32Array(size * size * 3),
  layout: EnlargedLayout = PIXEL_BY_PIXEL,
): Float32Array {
  // Positions clamped to the first and last sample alike (the last one's weight 1, on the pair before
  // it), so that the enlargement of a mirrored grid is the mirrored enlargement: clamped short of the
  // last sample (cols − 1.001), a mirrored photo's patch edges differed by up to 0.07 of a level.
  const position = (i: number, n: number) => Math.max(0, Math.min(n - 1, ((i + 0.5) * n) / size - 0.5));
  const x0s = new Int32Array(size);
  const fxs = new Float64Array(size);
  for (let i = 0; i < size; i++) {
    const sx = position(i, cols);
    x0s[i] = Math.max(0, Math.min(cols - 2, Math.floor(sx)));
    fxs[i] = sx - x0s[i]!;
  }
  const row = size * 3;
  if (ACROSS.values.length < rows * row) ACROSS.values = new Float64Array(rows * row);
  const across = ACROSS.values;
  for (let y = 0; y < rows; y++) acrossRow(rgb, y * cols * 3, x0s, fxs, across, y * row);
  const { channelStep, pixelStep, divisor } = layout;
  for (let j = 0; j < size; j++) {
    const sy = position(j, rows);
    const y0 = Math.max(0, Math.min(rows - 2, Math.floor(sy)));
    const o = j * size * pixelStep;
    downRow(across, y0 * row, row, sy - y0, out, o, channelStep, pixelStep, 1 / divisor);
  }
  return out;
}

/**
 * One input row of enlarge, from `start`, interpolated across to the output's columns, into `out` from `o`.
 * The per-row loops are functions of their own so that V8 compiles them whole (in enlarge, called a few
 * times a photo, a loop ran as on-stack-replaced code).
 */
function acrossRow(
  rgb: Float32Array,
  start: number,
  x0s: Int32Array,
  fxs: Float64Array,
  out: Float64Array,
  o: number,
): void {
  for (let i = 0; i < x0s.length; i++) {
    const x0 = start + x0s[i]! * 3;
    const fx = fxs[i]!;
    for (let c = 0; c < 3; c++) out[o + i * 3 + c] = rgb[x0 + c]! * (1 - fx) + rgb[x0 + 3 + c]! * fx;
  }
}

/** One output row of enlarge: the interpolated rows at `upper` and `upper + row` blended by fy, into `out`. */
function downRow(
  across: Float64Array,
  upper: number,
  row: number,
  fy: number,
  out: Float32Array,
  o: number,
  channelStep: number,
  pixelStep: number,
  reciprocal: number,
): void {
  const lower = upper + row;
  const n = row / 3;
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < 3; c++) {
      const a = i * 3 + c;
      const value = across[upper + a]! * (1 - fy) + across[lower + a]! * fy;
      out[o + i * pixelStep + c * channelStep] = Math.fround(value) * reciprocal;
    }
  }
}

/**
 * A rotated rectangle resampled to cols×rows RGB (0..255), into `out` when given: each output pixel averages a k×k grid of
 * bilinear samples across its footprint, so shrinking a large region does not alias its texture; k is
 * the footprint's size in image pixels, at most `maxPerAxis`.
 */
export function sampleRect(
  image: RgbImage,
  centre: readonly [number, number],
  u: readonly [number, number],
  v: readonly [number, number],
  w: number,
  h: number,
  cols: number,
  rows: number,
  maxPerAxis = 6,
  out: Float32Array = new Float32Array(cols * rows * 3),
): Float32Array {
  const k = Math.max(1, Math.min(maxPerAxis, Math.ceil(Math.max(w / cols, h / rows))));
  const { data, width, height } = image;
  // Sample positions: centre + a·u + e·v, evaluated left to right, so centre + a·u once per column sample.
  const acrossX = new Float64Array(cols * k);
  const acrossY = new Float64Array(cols * k);
  for (let i = 0; i < cols; i++) {
    for (let si = 0; si < k; si++) {
      const a = ((i + (si + 0.5) / k) / cols - 0.5) * w;
      acrossX[i * k + si] = centre[0] + a * u[0];
      acrossY[i * k + si] = centre[1] + a * u[1];
    }
  }
  const downX = new Float64Array(rows * k);
  const downY = new Float64Array(rows * k);
  for (let j = 0; j < rows; j++) {
    for (let sj = 0; sj < k; sj++) {
      const e = ((j + (sj + 0.5) / k) / rows - 0.5) * h;
      downX[j * k + sj] = e * v[0];
      downY[j * k + sj] = e * v[1];
    }
  }
  const grid: Grid = {
    data,
    stride: width * 3,
    maxX: width - 1.001,
    maxY: height - 1.001,
    k,
    cols,
    acrossX,
    acrossY,
    downX,
    downY,
  };
  // Two samples a pixel per axis (the face, most regions) run as their own loop: 1.2× faster, same sums.
  if (k === 2) for (let j = 0; j < rows; j++) sampleRowOf2(grid, j, out);
  else for (let j = 0; j < rows; j++) sampleRow(grid, j, out);
  return out;
}

/**
 * Whether any pixel that sampleRect reads for this rectangle has a channel at or above `level` (0–255).
 * Every sample of sampleRect is a weighted mean of the pixels it reads, its weights summing to 1, so when
 * none of them reaches `level` (an integer) no sample does: a photo's skin is scanned for white in a
 * fraction of the time sampling it takes. Conservative: the rectangle's bounding box in the image, a pixel
 * wider on every side than the pixels the samples read (clamped to the image as the samples are).
 */
export function readsAtLeast(
  image: RgbImage,
  centre: readonly [number, number],
  u: readonly [number, number],
  v: readonly [number, number],
  w: number,
  h: number,
  level: number,
): boolean {
  const { data, width, height } = image;
  const reachX = (Math.abs(u[0] * w) + Math.abs(v[0] * h)) / 2;
  const reachY = (Math.abs(u[1] * w) + Math.abs(v[1] * h)) / 2;
  if (width < 2 || height < 2 || !Number.isFinite(reachX + reachY + centre[0] + centre[1])) return true;
  // A sample clamped to the image reads pixels 0 and 1 at least, size − 2 and size − 1 at most.
  const first = (at: number, size: number) => Math.max(0, Math.min(size - 2, Math.floor(at) - 1));
  const last = (at: number, size: number) => Math.max(1, Math.min(size - 1, Math.ceil(at) + 2));
  const left = first(centre[0] - reachX, width);
  const right = last(centre[0] + reachX, width);
  const top = first(centre[1] - reachY, height);
  const bottom = last(centre[1] + reachY, height);
  for (let y = top; y <= bottom; y++) {
    if (rowReaches(data, (y * width + left) * 3, (y * width + right + 1) * 3, level)) return true;
  }
  return false;
}

/** Whether any of the values from..to−1 is at or above `level` (a function of its own, compiled whole). */
function rowReaches(data: Uint8Array, from: number, to: number, level: number): boolean {
  for (let i = from; i < to; i++) if (data[i]! >= level) return true;
  return false;
}

/** Where a rectangle's samples lie: k per column (centre + a·u) and k per row (e·v), and the image. */
interface Grid {
  readonly data: Uint8Array;
  readonly stride: number;
  readonly maxX: number;
  readonly maxY: number;
  readonly k: number;
  readonly cols: number;
  readonly acrossX: Float64Array;
  readonly acrossY: Float64Array;
  readonly downX: Float64Array;
  readonly downY: Float64Array;
}

/**
 * Output row j of sampleRect. A function of its own, called for every row, so that V8 compiles it whole
 * after a few photos: nested in sampleRect (called a few times a photo) the loops ran as on-stack-replaced
 * code, thrown away at every exit from an inner loop.
 */
function sampleRow(grid: Grid, j: number, out: Float32Array): void {
  const { data, stride, maxX, maxY, k, cols, acrossX, acrossY, downX, downY } = grid;
  const n = k * k;
  for (let i = 0; i < cols; i++) {
    let r = 0;
    let g = 0;
    let b = 0;
    for (let sj = 0; sj < k; sj++) {
      const ex = downX[j * k + sj]!;
      const ey = downY[j * k + sj]!;
      for (let si = 0; si < k; si++) {
        const sx = Math.max(0, Math.min(maxX, acrossX[i * k + si]! + ex));
        const sy = Math.max(0, Math.min(maxY, acrossY[i * k + si]! + ey));
        // Truncation is the floor here: both are clamped to 0 or more.
        const x0 = sx | 0;
        const y0 = sy | 0;
        const fx = sx - x0;
        const fy = sy - y0;
        const w00 = (1 - fx) * (1 - fy);
        const w10 = fx * (1 - fy);
        const w01 = (1 - fx) * fy;
        const w11 = fx * fy;
        const p = y0 * stride + x0 * 3;
        const q = p + stride;
        r += w00 * data[p]! + w10 * data[p + 3]! + w01 * data[q]! + w11 * data[q + 3]!;
        g += w00 * data[p + 1]! + w10 * data[p + 4]! + w01 * data[q + 1]! + w11 * data[q + 4]!;
        b += w00 * data[p + 2]! + w10 * data[p + 5]! + w01 * data[q + 2]! + w11 * data[q + 5]!;
      }
    }
    const o = (j * cols + i) * 3;
    out[o] = r / n;
    out[o + 1] = g / n;
    out[o + 2] = b / n;
  }
}

/**
 * sampleRow for k = 2: each output pixel's four samples in sampleRow's order (s = 0, 1 the upper pair left
 * to right, s = 2, 3 the lower pair) with the same arithmetic, the pixel's two column and the row's two
 * row offsets read once.
 */
function sampleRowOf2(grid: Grid, j: number, out: Float32Array): void {
  const { data, stride, maxX, maxY, cols, acrossX, acrossY, downX, downY } = grid;
  const ex0 = downX[2 * j]!;
  const ey0 = downY[2 * j]!;
  const ex1 = downX[2 * j + 1]!;
  const ey1 = downY[2 * j + 1]!;
  for (let i = 0, o = j * cols * 3; i < cols; i++, o += 3) {
    const ax0 = acrossX[2 * i]!;
    const ay0 = acrossY[2 * i]!;
    const ax1 = acrossX[2 * i + 1]!;
    const ay1 = acrossY[2 * i + 1]!;
    let r = 0;
    let g = 0;
    let b = 0;
    for (let s = 0; s < 4; s++) {
      const sx = Math.max(0, Math.min(maxX, (s & 1 ? ax1 : ax0) + (s & 2 ? ex1 : ex0)));
      const sy = Math.max(0, Math.min(maxY, (s & 1 ? ay1 : ay0) + (s & 2 ? ey1 : ey0)));
      const x0 = sx | 0;
      const y0 = sy | 0;
      const fx = sx - x0;
      const fy = sy - y0;
      const w00 = (1 - fx) * (1 - fy);
      const w10 = fx * (1 - fy);
      const w01 = (1 - fx) * fy;
      const w11 = fx * fy;
      const p = y0 * stride + x0 * 3;
      const q = p + stride;
      r += w00 * data[p]! + w10 * data[p + 3]! + w01 * data[q]! + w11 * data[q + 3]!;
      g += w00 * data[p + 1]! + w10 * data[p + 4]! + w01 * data[q + 1]! + w11 * data[q + 4]!;
      b += w00 * data[p + 2]! + w10 * data[p + 5]! + w01 * data[q + 2]! + w11 * data[q + 5]!;
    }
    out[o] = r / 4;
    out[o + 1] = g / 4;
    out[o + 2] = b / 4;
  }
}

/** closeGrid's intermediate values. */
const CLOSING = new Scratch();

/**
 * A grey closing of an RGB grid `cols` samples wide with a 3×3 square, on each channel: the largest
 * value of each 3×3 neighbourhood, then the smallest of those (at the grid's edge, of the values inside
 * it), which fills in dark details one or two samples wide and leaves wider ones as they are. In place.
 */
export function closeGrid(rgb: Float32Array, cols: number): Float32Array {
  const spare = CLOSING.take(rgb.length);
  const row = cols * 3;
  alongRows(rgb, spare, row, true);
  alongColumns(spare, rgb, row, true);
  alongRows(rgb, spare, row, false);
  alongColumns(spare, rgb, row, false);
  return rgb;
}

// The closing's four passes. A value becomes the largest (or smallest) of itself and the same channel of
// the samples before and after it along its row (3 values away) or its column (a row away); at the grid's
// edge, of those inside it (edgeValue). Away from the edge the same three values are compared by a loop
// without the edge's tests (largestOf3, smallestOf3, functions of their own that V8 compiles whole): the
// same values, as the largest and smallest of numbers are exact.

function alongRows(src: Float32Array, out: Float32Array, row: number, largest: boolean): void {
  for (let start = 0; start < src.length; start += row) {
    const end = start + row;
    for (let i = start; i < Math.min(end, start + 3); i++) edgeValue(src, out, i, start, end, 3, largest);
    if (largest) largestOf3(src, out, start + 3, end - 3, 3);
    else smallestOf3(src, out, start + 3, end - 3, 3);
    for (let i = Math.max(start + 3, end - 3); i < end; i++) edgeValue(src, out, i, start, end, 3, largest);
  }
}

function alongColumns(src: Float32Array, out: Float32Array, row: number, largest: boolean): void {
  const n = src.length;
  for (let i = 0; i < Math.min(n, row); i++) edgeValue(src, out, i, 0, n, row, largest);
  for (let start = row; start < n - row; start += row) {
    if (largest) largestOf3(src, out, start, start + row, row);
    else smallestOf3(src, out, start, start + row, row);
  }
  for (let i = Math.max(row, n - row); i < n; i++) edgeValue(src, out, i, 0, n, row, largest);
}

/** Value i of a pass along a line from `lo` to `hi` (exclusive), its neighbours `step` away if inside. */
function edgeValue(
  src: Float32Array,
  out: Float32Array,
  i: number,
  lo: number,
  hi: number,
  step: number,
  largest: boolean,
): void {
  const before = i - step >= lo ? src[i - step]! : src[i]!;
  const after = i + step < hi ? src[i + step]! : src[i]!;
  out[i] = largest ? Math.max(Math.max(before, src[i]!), after) : Math.min(Math.min(before, src[i]!), after);
}

function largestOf3(src: Float32Array, out: Float32Array, from: number, to: number, step: number): void {
  for (let i = from; i < to; i++) out[i] = Math.max(Math.max(src[i - step]!, src[i]!), src[i + step]!);
}

function smallestOf3(src: Float32Array, out: Float32Array, from: number, to: number, step: number): void {
  for (let i = from; i < to; i++) out[i] = Math.min(Math.min(src[i - step]!, src[i]!), src[i + step]!);
}

/** A (2·cols)×(2·rows) RGB grid to cols×rows, each value the mean of its 2×2 block, into `out` when given. */
export function halve(
  fine: Float32Array,
  cols: number,
  rows: number,
  out: Float32Array = new Float32Array(cols * rows * 3),
): Float32Array {
  const row = cols * 2 * 3;
  for (let j = 0; j < rows; j++) {
    for (let i = 0; i < cols; i++) {
      const top = 2 * j * row + 2 * i * 3;
      for (let c = 0; c < 3; c++) {
        const p = top + c;
        out[(j * cols + i) * 3 + c] = (fine[p]! + fine[p + 3]! + fine[p + row]! + fine[p + row + 3]!) / 4;
      }
    }
  }
  return out;
}
