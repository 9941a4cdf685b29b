import assert from 'node:assert/strict';
import { sampleView } from '../../services/inference/face-detector.ts';

/** sampleView as its plain per-sample formula: bilinear, NHWC, scaled to [-1, 1], −1 outside the photo. */
function reference(
  image: { data: Uint8Array; width: number; height: number },
  box: { x: number; y: number; w: number; h: number },
  size: number,
): Float32Array {
  const { data, width, height } = image;
  const out = new Float32Array(size * size * 3);
  const scale = box.w / size;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const o = (y * size + x) * 3;
      const sx = box.x + (x + 0.5) * scale - 0.5;
      const sy = box.y + (y + 0.5) * scale - 0.5;
      if (sx < -0.5 || sy < -0.5 || sx > width - 0.5 || sy > height - 0.5) {
        out[o] = out[o + 1] = out[o + 2] = -1;
        continue;
      }
      const x0 = Math.max(0, Math.min(width - 1, Math.floor(sx)));
      const y0 = Math.max(0, Math.min(height - 1, Math.floor(sy)));
      const x1 = Math.min(width - 1, x0 + 1);
      const y1 = Math.min(height - 1, y0 + 1);
      const fx = Math.max(0, Math.min(1, sx - x0));
      const fy = Math.max(0, Math.min(1, sy - y0));
      for (let c = 0; c < 3; c++) {
        const top = data[(y0 * width + x0) * 3 + c]! * (1 - fx) + data[(y0 * width + x1) * 3 + c]! * fx;
        const bottom = data[(y1 * width + x0) * 3 + c]! * (1 - fx) + data[(y1 * width + x1) * 3 + c]! * fx;
        out[o + c] = ((top * (1 - fy) + bottom * fy) / 255) * 2 - 1;
      }
    }
  }
  return out;
}

describe("the face detector's view of a photo", () => {
  const width = 61;
  const height = 47;
  const data = Uint8Array.from({ length: width * height * 3 }, (_, i) => (i * 37 + (i >> 4)) % 256);
  const image = { data, width, height };
  // The whole photo letterboxed (rows outside it), a face's surroundings, a tile across a corner, a view
  // wholly outside, and one enlarging the photo.
  for (const [title, box, size] of [
    ['the whole photo, padded above and below', { x: 0, y: -7, w: 61, h: 61 }, 32],
    ['a square inside it', { x: 13.4, y: 9.7, w: 25.3, h: 25.3 }, 16],
    ['a tile across its corner', { x: 40.2, y: -12.6, w: 30, h: 30 }, 32],
    ['a square wholly outside it', { x: -90, y: 60, w: 20, h: 20 }, 8],
    ['a small square enlarged', { x: 20.1, y: 20.6, w: 6, h: 6 }, 32],
  ] as const) {
    it(`${title}: the same values, to the bit, as the per-sample formula`, () => {
      const got = sampleView(image, box, size, new Float32Array(size * size * 3).fill(7));
      assert.deepEqual(got, reference(image, box, size));
    });
  }
});
