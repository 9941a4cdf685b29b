import assert from 'node:assert/strict';
import { closeGrid, enlarge, readsAtLeast, sampleRect } from '../../services/inference/sampling.ts';

/** sampleRect as its plain per-sample formula, every sample clamped to the image. */
function reference(
  image: { data: Uint8Array; width: number; height: number },
  centre: [number, number],
  u: [number, number],
  v: [number, number],
  w: number,
  h: number,
  cols: number,
  rows: number,
  k: number,
): Float32Array {
  const { data, width, height } = image;
  const out = new Float32Array(cols * rows * 3);
  for (let j = 0; j < rows; j++) {
    for (let i = 0; i < cols; i++) {
      const sum = [0, 0, 0];
      for (let sj = 0; sj < k; sj++) {
        const e = ((j + (sj + 0.5) / k) / rows - 0.5) * h;
        for (let si = 0; si < k; si++) {
          const a = ((i + (si + 0.5) / k) / cols - 0.5) * w;
          const sx = Math.max(0, Math.min(width - 1.001, centre[0] + a * u[0] + e * v[0]));
          const sy = Math.max(0, Math.min(height - 1.001, centre[1] + a * u[1] + e * v[1]));
          const x0 = Math.floor(sx);
          const y0 = Math.floor(sy);
          const fx = sx - x0;
          const fy = sy - y0;
          const p = (y0 * width + x0) * 3;
          const q = p + width * 3;
          for (let c = 0; c < 3; c++) {
            sum[c]! +=
              (1 - fx) * (1 - fy) * data[p + c]! +
              fx * (1 - fy) * data[p + 3 + c]! +
              (1 - fx) * fy * data[q + c]! +
              fx * fy * data[q + 3 + c]!;
          }
        }
      }
      for (let c = 0; c < 3; c++) out[(j * cols + i) * 3 + c] = sum[c]! / (k * k);
    }
  }
  return out;
}

describe('sampling a rotated rectangle', () => {
  const width = 97;
  const height = 83;
  const data = Uint8Array.from({ length: width * height * 3 }, (_, i) => (i * 37 + (i >> 5)) % 256);
  const image = { data, width, height };
  const turn = 0.3;
  const u: [number, number] = [Math.cos(turn), Math.sin(turn)];
  const v: [number, number] = [-u[1], u[0]];
  // Inside the image (sampled without clamping), across its edge, and wholly outside it.
  for (const [title, centre, size] of [
    ['inside the image', [48, 41], 40],
    ['across its edge', [90, 10], 40],
    ['outside it', [-50, 120], 30],
  ] as const) {
    it(`${title}: the same values, to the bit, as the per-sample formula`, () => {
      for (const k of [1, 2, 3]) {
        const cols = 13;
        const rows = 9;
        const got = sampleRect(image, [...centre], u, v, size, size * 0.8, cols, rows, k);
        const want = reference(image, [...centre], u, v, size, size * 0.8, cols, rows, k);
        assert.deepEqual(got, want, `k ${k}`);
      }
    });
  }
});

describe('scanning a rectangle for white before sampling it', () => {
  // Skin at 249, one level under white: any sample the white pixel reaches is at 250 or more.
  const width = 24;
  const height = 20;
  const background = () => new Uint8Array(width * height * 3).fill(249);
  const rects: [string, [number, number], number, number, number][] = [
    ['upright, inside', [11, 9], 0, 9, 6],
    ['turned by 0.5, inside', [12.3, 10.6], 0.5, 8, 5],
    ['turned by −1.2, across the left edge', [1, 7], -1.2, 9, 4],
    ['turned by 2.8, across a corner', [22.5, 18.7], 2.8, 7, 7],
    ['wholly outside, beyond the right edge', [40, 5], 0.2, 6, 4],
    ['wholly outside, above the photo', [8, -20], 0, 5, 5],
  ];

  for (const [title, centre, turn, w, h] of rects) {
    it(`${title}: finds the white pixel wherever a sample reads it, and nothing on skin without white`, () => {
      const u: [number, number] = [Math.cos(turn), Math.sin(turn)];
      const v: [number, number] = [-u[1], u[0]];
      assert.equal(readsAtLeast({ data: background(), width, height }, centre, u, v, w, h, 250), false);
      let reached = 0;
      for (let p = 0; p < width * height; p++) {
        const data = background();
        data[p * 3 + (p % 3)] = 255;
        const image = { data, width, height };
        const found = readsAtLeast(image, centre, u, v, w, h, 250);
        for (const k of [1, 2, 3, 6]) {
          const samples = sampleRect(image, centre, u, v, w, h, 5, 4, k);
          if (samples.some((value) => value >= 250)) {
            reached++;
            assert.ok(
              found,
              `white pixel ${p % width},${Math.floor(p / width)} read at k ${k} but not found`,
            );
          }
        }
      }
      assert.ok(reached > 0, 'some white pixel is read');
    });
  }

  it('a white pixel far from the rectangle is not under it', () => {
    const data = background();
    data[(2 * width + 20) * 3] = 255;
    assert.equal(readsAtLeast({ data, width, height }, [6, 14], [1, 0], [0, 1], 6, 4, 250), false);
    assert.equal(readsAtLeast({ data, width, height }, [18, 4], [1, 0], [0, 1], 6, 4, 250), true);
  });
});

describe('closing a grid', () => {
  /** closeGrid as its per-value formula: each pass compares a value with its neighbours inside the grid. */
  function referenceClosing(rgb: Float32Array, cols: number): Float32Array {
    const rows = rgb.length / (cols * 3);
    const at = (grid: Float32Array, x: number, y: number, c: number) => grid[(y * cols + x) * 3 + c]!;
    const pass = (grid: Float32Array, dx: number, dy: number, pick: (...v: number[]) => number) => {
      const out = new Float32Array(grid.length);
      for (let y = 0; y < rows; y++) {
        for (let x = 0; x < cols; x++) {
          for (let c = 0; c < 3; c++) {
            const inside = (xx: number, yy: number) => xx >= 0 && yy >= 0 && xx < cols && yy < rows;
            const here = at(grid, x, y, c);
            const before = inside(x - dx, y - dy) ? at(grid, x - dx, y - dy, c) : here;
            const after = inside(x + dx, y + dy) ? at(grid, x + dx, y + dy, c) : here;
            out[(y * cols + x) * 3 + c] = pick(pick(before, here), after);
          }
        }
      }
      return out;
    };
    const dilated = pass(pass(rgb, 1, 0, Math.max), 0, 1, Math.max);
    return pass(pass(dilated, 1, 0, Math.min), 0, 1, Math.min);
  }

  for (const [cols, rows] of [
    [108, 92],
    [7, 2],
    [3, 3],
    [2, 1],
    [1, 5],
    [1, 1],
  ] as const) {
    it(`a ${cols}×${rows} grid: the same values, to the bit, as the per-value formula`, () => {
      const grid = Float32Array.from({ length: cols * rows * 3 }, (_, i) => ((i * 7919) % 1013) / 4);
      assert.deepEqual(closeGrid(grid.slice(), cols), referenceClosing(grid, cols));
    });
  }

  it('fills in a dark sample one wide and keeps a dark patch three wide', () => {
    const cols = 9;
    const grid = new Float32Array(cols * 9 * 3).fill(200);
    const set = (x: number, y: number, value: number) =>
      grid.fill(value, (y * cols + x) * 3, (y * cols + x) * 3 + 3);
    set(1, 1, 10);
    for (let y = 4; y < 7; y++) for (let x = 4; x < 7; x++) set(x, y, 10);
    const closed = closeGrid(grid, cols);
    assert.equal(closed[(1 * cols + 1) * 3], 200);
    assert.equal(closed[(5 * cols + 5) * 3], 10);
  });
});

/** A cols×rows RGB grid mirrored left to right. */
function mirrored(rgb: Float32Array, cols: number, rows: number): Float32Array {
  const out = new Float32Array(rgb.length);
  for (let y = 0; y < rows; y++) {
    for (let x = 0; x < cols; x++) {
      for (let c = 0; c < 3; c++) out[(y * cols + x) * 3 + c] = rgb[(y * cols + cols - 1 - x) * 3 + c]!;
    }
  }
  return out;
}

describe('enlarging a patch', () => {
  // Both ends clamped alike: clamped to cols − 1.001 at one end, the last column of a patch kept 0.1 % of
  // its neighbour, and a mirrored photo's patches differed at their edges (docs/inference.md, Stability).
  for (const [cols, rows] of [
    [27, 23],
    [15, 15],
    [6, 9],
  ] as const) {
    it(`enlarging a mirrored ${cols}×${rows} grid to 64×64 gives the mirrored enlargement`, () => {
      const grid = Float32Array.from({ length: cols * rows * 3 }, (_, i) => (i * 7919) % 256);
      const direct = mirrored(enlarge(grid, cols, rows, 64), 64, 64);
      const ofMirror = enlarge(mirrored(grid, cols, rows), cols, rows, 64);
      let worst = 0;
      for (let i = 0; i < direct.length; i++) worst = Math.max(worst, Math.abs(direct[i]! - ofMirror[i]!));
      assert.ok(worst < 1e-3, `largest difference ${worst}`);
    });
  }

  /** enlarge as its plain per-pixel formula (pixel by pixel, float32), then laid out as planes divided by 255. */
  function referencePlanes(rgb: Float32Array, cols: number, rows: number, size: number): Float32Array {
    const position = (i: number, n: number) => Math.max(0, Math.min(n - 1, ((i + 0.5) * n) / size - 0.5));
    const pixels = new Float32Array(size * size * 3);
    for (let j = 0; j < size; j++) {
      const sy = position(j, rows);
      const y0 = Math.max(0, Math.min(rows - 2, Math.floor(sy)));
      const fy = sy - y0;
      for (let i = 0; i < size; i++) {
        const sx = position(i, cols);
        const x0 = Math.max(0, Math.min(cols - 2, Math.floor(sx)));
        const fx = sx - x0;
        for (let c = 0; c < 3; c++) {
          const at = (x: number, y: number) => rgb[(y * cols + x) * 3 + c]!;
          const top = at(x0, y0) * (1 - fx) + at(x0 + 1, y0) * fx;
          const bottom = at(x0, y0 + 1) * (1 - fx) + at(x0 + 1, y0 + 1) * fx;
          pixels[(j * size + i) * 3 + c] = top * (1 - fy) + bottom * fy;
        }
      }
    }
    const planes = new Float32Array(pixels.length);
    for (let i = 0; i < size * size; i++) {
      for (let c = 0; c < 3; c++) planes[c * size * size + i] = pixels[i * 3 + c]! / 255;
    }
    return planes;
  }

  it('enlarges into the planes of the batch, divided by 255, the same values to the bit as the per-pixel formula', () => {
    for (const [cols, rows] of [
      [70, 22],
      [22, 6],
      [13, 15],
    ] as const) {
      const grid = Float32Array.from({ length: cols * rows * 3 }, (_, i) => ((i * 7919) % 2551) / 10);
      const planes = { channelStep: 64 * 64, pixelStep: 1, divisor: 255 } as const;
      const got = enlarge(grid, cols, rows, 64, new Float32Array(64 * 64 * 3), planes);
      assert.deepEqual(got, referencePlanes(grid, cols, rows, 64), `${cols}×${rows}`);
    }
  });

  it('an enlarged grid keeps its corner samples at its corners', () => {
    const grid = Float32Array.from({ length: 5 * 4 * 3 }, (_, i) => (i * 31) % 256);
    const out = enlarge(grid, 5, 4, 64);
    const at = (rgb: Float32Array, cols: number, x: number, y: number) => rgb[(y * cols + x) * 3]!;
    assert.equal(out[0], grid[0]);
    assert.ok(Math.abs(at(out, 64, 63, 0) - at(grid, 5, 4, 0)) < 1e-4);
    assert.ok(Math.abs(at(out, 64, 0, 63) - at(grid, 5, 0, 3)) < 1e-4);
    assert.ok(Math.abs(at(out, 64, 63, 63) - at(grid, 5, 4, 3)) < 1e-4);
  });
});
