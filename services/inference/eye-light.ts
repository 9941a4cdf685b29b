/**
 * How much light reaches the face, read from the whites of its eyes rather than from its skin: the sclera
 * is near white on every skin tone, so under the same light a darker skin's eyes read as bright as a
 * lighter skin's. The too_dark gate (quality.ts) takes this as a second way to pass.
 */
import type { RgbImage } from './decode.ts';
import type { Landmarks } from './landmarks.ts';
import { kthSmallest } from './pixel-math.ts';
import { Scratch } from './sampling.ts';

/** The 68-point landmarks' outline of each eye (the person's right eye first). */
const EYES: readonly (readonly number[])[] = [
  [36, 37, 38, 39, 40, 41],
  [42, 43, 44, 45, 46, 47],
];
/**
 * The share of an eye's pixels darker than the value read: the brightest tenth is the white beside the
 * iris on an open eye, while a catchlight (a few pixels) or a lash line stays out of it.
 */
const SHARE = 0.9;
/** Pixels read per eye at most (sampled on a coarser grid past it) and at least (fewer: a closed eye). */
const MAX_PIXELS = 600;
const MIN_PIXELS = 12;

/** eyeLight's luma values (it runs without awaiting: see Scratch). */
const VALUES = new Scratch();

/**
 * The light on the eyes: the SHARE-th percentile of luma (0–255) inside each eye's landmark outline, the
 * brighter eye first (the gate needs both: one lens's reflection, one eye behind a dark lens or closed
 * does not pass a dark photo); 0 for an eye closed or off the photo.
 */
export function eyeLight(image: RgbImage, landmarks: Landmarks): [number, number] {
  const [a, b] = EYES.map((eye) =>
    eyeWhite(
      image,
      eye.map((i) => landmarks[i]!),
    ),
  ) as [number, number];
  return a >= b ? [a, b] : [b, a];
}

/** The SHARE-th percentile of luma over the pixel centres inside the polygon, 0 with too few of them. */
function eyeWhite(image: RgbImage, polygon: readonly (readonly [number, number])[]): number {
  const { data, width, height } = image;
  let [minX, maxX, minY, maxY] = [Infinity, -Infinity, Infinity, -Infinity];
  for (const [x, y] of polygon) {
    minX = Math.min(minX, x);
    maxX = Math.max(maxX, x);
    minY = Math.min(minY, y);
    maxY = Math.max(maxY, y);
  }
  const y0 = Math.max(0, Math.ceil(minY));
  const y1 = Math.min(height - 1, Math.floor(maxY));
  if (y1 < y0 || maxX < 0 || minX > width - 1) return 0;
  // The outline covers about half its bounding box: the grid's step keeps it near MAX_PIXELS.
  const step = Math.max(1, Math.round(Math.sqrt(((maxX - minX + 1) * (maxY - minY + 1)) / (2 * MAX_PIXELS))));
  const values = VALUES.take(Math.ceil((maxX - minX + 2) / step) * Math.ceil((y1 - y0 + 1) / step));
  let n = 0;
  for (let y = y0; y <= y1; y += step) {
    // The row's span inside the outline (an eye's outline is convex: one span), pixel centres only.
    let [from, to] = [Infinity, -Infinity];
    for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i++) {
      const [xi, yi] = polygon[i]!;
      const [xj, yj] = polygon[j]!;
      if (yi > y === yj > y) continue;
      const x = xi + ((y - yi) * (xj - xi)) / (yj - yi);
      from = Math.min(from, x);
      to = Math.max(to, x);
    }
    const x1 = Math.min(width - 1, Math.ceil(to) - 1);
    for (let x = Math.max(0, Math.floor(from) + 1); x <= x1; x += step) {
      const i = (y * width + x) * 3;
      values[n++] = 0.299 * data[i]! + 0.587 * data[i + 1]! + 0.114 * data[i + 2]!;
    }
  }
  if (n < MIN_PIXELS) return 0;
  return kthSmallest(values.subarray(0, n), Math.floor(SHARE * (n - 1)));
}
