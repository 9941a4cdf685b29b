/**
 * Resampling of image rectangles: a rotated rectangle of the photo to a small grid (area-averaged, so
 * shrinking does not alias texture), and bilinear enlargement of such a grid to a patch.
 */
import type { RgbImage } from './decode.ts';

/** Bilinear enlargement of a cols×rows RGB image to size×size. */
export function enlarge(rgb: Float32Array, cols: number, rows: number, size: number): Float32Array {
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
export function sampleRect(
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
