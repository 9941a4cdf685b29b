/**
 * Skin regions from the face keypoints, and their pixels as fixed-size patches for the measures graph.
 * Regions live in the face's own frame — the eye line and its perpendicular, in units of the distance
 * between the eyes — so they sit on the same skin whatever the face's size, position or tilt. A mirrored
 * photo swaps the two sides, which the scoring averages, so mirroring changes no score.
 */
import type { RgbImage } from './decode.ts';
import type { Face } from './face.ts';

export const PATCH = 64;
/**
 * Regions are first sampled at this many samples per eye distance, then enlarged to the patch size, so
 * texture is measured at the same scale relative to the face whatever the photo's resolution (a face too
 * small to give this many pixels fails the face_too_small gate first).
 */
const SAMPLES_PER_EYE_DISTANCE = 40;

export const REGIONS = [
  'forehead',
  'right_cheek',
  'left_cheek',
  'nose',
  'chin',
  'right_under_eye',
  'left_under_eye',
] as const;
export type Region = (typeof REGIONS)[number];

interface Frame {
  readonly right: readonly [number, number];
  readonly left: readonly [number, number];
  readonly nose: readonly [number, number];
  readonly mouth: readonly [number, number];
  /** Unit vector along the eye line, from the subject's right eye to the left. */
  readonly u: readonly [number, number];
  /** Unit vector perpendicular to it, pointing down the face. */
  readonly v: readonly [number, number];
  /** Distance between the eyes, in pixels. */
  readonly d: number;
}

/** Centre (as an anchor point plus offsets along u and v, in eye distances) and size of each region. */
function layout(
  f: Frame,
): Record<Region, { at: readonly [number, number]; du: number; dv: number; w: number; h: number }> {
  const mid: [number, number] = [(f.right[0] + f.left[0]) / 2, (f.right[1] + f.left[1]) / 2];
  return {
    forehead: { at: mid, du: 0, dv: -0.75, w: 1.3, h: 0.45 },
    right_cheek: { at: f.right, du: -0.15, dv: 0.6, w: 0.45, h: 0.4 },
    left_cheek: { at: f.left, du: 0.15, dv: 0.6, w: 0.45, h: 0.4 },
    nose: { at: f.nose, du: 0, dv: -0.2, w: 0.3, h: 0.3 },
    chin: { at: f.mouth, du: 0, dv: 0.45, w: 0.55, h: 0.25 },
    right_under_eye: { at: f.right, du: 0, dv: 0.36, w: 0.4, h: 0.14 },
    left_under_eye: { at: f.left, du: 0, dv: 0.36, w: 0.4, h: 0.14 },
  };
}

function frameOf(face: Face): Frame {
  const [right, left, nose, mouth] = face.keypoints;
  const dx = left[0] - right[0];
  const dy = left[1] - right[1];
  const d = Math.hypot(dx, dy) || 1;
  return { right, left, nose, mouth, u: [dx / d, dy / d], v: [-dy / d, dx / d], d };
}

/** All regions as one batch: float32 [7, 3, 64, 64], sRGB 0..1, channel-major. */
export function regionPatches(image: RgbImage, face: Face): Float32Array {
  const f = frameOf(face);
  const out = new Float32Array(REGIONS.length * 3 * PATCH * PATCH);
  REGIONS.forEach((name, r) => {
    const { at, du, dv, w, h } = layout(f)[name];
    const centre: [number, number] = [
      at[0] + (du * f.u[0] + dv * f.v[0]) * f.d,
      at[1] + (du * f.u[1] + dv * f.v[1]) * f.d,
    ];
    const across = Math.max(2, Math.round(w * SAMPLES_PER_EYE_DISTANCE));
    const down = Math.max(2, Math.round(h * SAMPLES_PER_EYE_DISTANCE));
    const coarse = sampleRect(image, centre, f.u, f.v, w * f.d, h * f.d, across, down);
    const rgb = enlarge(coarse, across, down, PATCH);
    const plane = PATCH * PATCH;
    for (let i = 0; i < plane; i++) {
      for (let c = 0; c < 3; c++) out[(r * 3 + c) * plane + i] = rgb[i * 3 + c]! / 255;
    }
  });
  return out;
}

/** The inner part of the face box (skin rather than hair and background), upright, size×size RGB. */
export function facePatch(image: RgbImage, face: Face, size: number): Float32Array {
  const f = frameOf(face);
  const centre: [number, number] = [face.box.x + face.box.w / 2, face.box.y + face.box.h / 2];
  return sampleRect(image, centre, f.u, f.v, face.box.w * 0.7, face.box.h * 0.7, size, size);
}

/** Bilinear enlargement of a cols×rows RGB image to size×size. */
function enlarge(rgb: Float32Array, cols: number, rows: number, size: number): Float32Array {
  const out = new Float32Array(size * size * 3);
  for (let j = 0; j < size; j++) {
    const sy = Math.max(0, Math.min(rows - 1.001, ((j + 0.5) * rows) / size - 0.5));
    const y0 = Math.floor(sy);
    const fy = sy - y0;
    for (let i = 0; i < size; i++) {
      const sx = Math.max(0, Math.min(cols - 1.001, ((i + 0.5) * cols) / size - 0.5));
      const x0 = Math.floor(sx);
      const fx = sx - x0;
      for (let c = 0; c < 3; c++) {
        const at = (x: number, y: number) => rgb[(y * cols + x) * 3 + c]!;
        const top = at(x0, y0) * (1 - fx) + at(x0 + 1, y0) * fx;
        const bottom = at(x0, y0 + 1) * (1 - fx) + at(x0 + 1, y0 + 1) * fx;
        out[(j * size + i) * 3 + c] = top * (1 - fy) + bottom * fy;
      }
    }
  }
  return out;
}

/**
 * A rotated rectangle resampled to cols×rows RGB (0..255): each output pixel averages a k×k grid of
 * bilinear samples across its footprint, so shrinking a large region does not alias its texture.
 */
function sampleRect(
  image: RgbImage,
  centre: readonly [number, number],
  u: readonly [number, number],
  v: readonly [number, number],
  w: number,
  h: number,
  cols: number,
  rows: number,
): Float32Array {
  const out = new Float32Array(cols * rows * 3);
  const k = Math.max(1, Math.min(6, Math.ceil(Math.max(w / cols, h / rows))));
  const { data, width, height } = image;
  const pixel = (x: number, y: number, c: number) => data[(y * width + x) * 3 + c]!;
  for (let j = 0; j < rows; j++) {
    for (let i = 0; i < cols; i++) {
      let r = 0;
      let g = 0;
      let b = 0;
      for (let sj = 0; sj < k; sj++) {
        for (let si = 0; si < k; si++) {
          const a = ((i + (si + 0.5) / k) / cols - 0.5) * w;
          const e = ((j + (sj + 0.5) / k) / rows - 0.5) * h;
          const sx = Math.max(0, Math.min(width - 1.001, centre[0] + a * u[0] + e * v[0]));
          const sy = Math.max(0, Math.min(height - 1.001, centre[1] + a * u[1] + e * v[1]));
          const x0 = Math.floor(sx);
          const y0 = Math.floor(sy);
          const fx = sx - x0;
          const fy = sy - y0;
          const w00 = (1 - fx) * (1 - fy);
          const w10 = fx * (1 - fy);
          const w01 = (1 - fx) * fy;
          const w11 = fx * fy;
          r +=
            w00 * pixel(x0, y0, 0) +
            w10 * pixel(x0 + 1, y0, 0) +
            w01 * pixel(x0, y0 + 1, 0) +
            w11 * pixel(x0 + 1, y0 + 1, 0);
          g +=
            w00 * pixel(x0, y0, 1) +
            w10 * pixel(x0 + 1, y0, 1) +
            w01 * pixel(x0, y0 + 1, 1) +
            w11 * pixel(x0 + 1, y0 + 1, 1);
          b +=
            w00 * pixel(x0, y0, 2) +
            w10 * pixel(x0 + 1, y0, 2) +
            w01 * pixel(x0, y0 + 1, 2) +
            w11 * pixel(x0 + 1, y0 + 1, 2);
        }
      }
      const o = (j * cols + i) * 3;
      const n = k * k;
      out[o] = r / n;
      out[o + 1] = g / n;
      out[o + 2] = b / n;
    }
  }
  return out;
}
