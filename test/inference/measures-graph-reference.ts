/**
 * A plain, float64 re-implementation of the skin-measures model, written from the feature definitions
 * (docs/measures-graph.md), sharing no code with the graph: the tests compare the model against it.
 * Constants are spelled out here on purpose, so a wrong constant in the builder shows up as a mismatch.
 */

const SIZE = 64;

/** One patch as the model takes it: planes R, G, B of SIZE×SIZE values in 0..1, row-major. */
export type Patch = Float32Array;

/** A single-channel image. */
type Plane = { width: number; height: number; data: Float64Array };

function plane(width: number, height: number, at: (x: number, y: number) => number): Plane {
  const data = new Float64Array(width * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data[y * width + x] = at(x, y);
  return { width, height, data };
}

function pixel(p: Plane, x: number, y: number): number {
  return p.data[y * p.width + x]!;
}

function mean(p: Plane): number {
  return p.data.reduce((sum, v) => sum + v, 0) / p.data.length;
}

function meanAbs(p: Plane): number {
  return p.data.reduce((sum, v) => sum + Math.abs(v), 0) / p.data.length;
}

function share(p: Plane, test: (v: number, i: number) => boolean): number {
  return p.data.filter(test).length / p.data.length;
}

function toLinear(c: number): number {
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
}

function labF(t: number): number {
  return t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16 / 116;
}

/** CIELAB of one sRGB colour, D65 white. */
export function srgbToLab(r: number, g: number, b: number): [number, number, number] {
  const [R, G, B] = [toLinear(r), toLinear(g), toLinear(b)];
  const X = 0.4124564 * R + 0.3575761 * G + 0.1804375 * B;
  const Y = 0.2126729 * R + 0.7151522 * G + 0.072175 * B;
  const Z = 0.0193339 * R + 0.119192 * G + 0.9503041 * B;
  const [fx, fy, fz] = [labF(X / 0.95047), labF(Y / 1.0), labF(Z / 1.08883)];
  return [116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)];
}

/** 3×3 cross-correlation without padding: the output is two pixels smaller each way. */
function filterValid(p: Plane, kernel: readonly number[]): Plane {
  return plane(p.width - 2, p.height - 2, (x, y) => {
    let sum = 0;
    for (let dy = 0; dy < 3; dy++) {
      for (let dx = 0; dx < 3; dx++) sum += kernel[dy * 3 + dx]! * pixel(p, x + dx, y + dy);
    }
    return sum;
  });
}

/** Mean over a window² neighbourhood, same size, counting only pixels inside the image. */
function localMean(p: Plane, window: number): Plane {
  const half = (window - 1) / 2;
  return plane(p.width, p.height, (x, y) => {
    let sum = 0;
    let count = 0;
    for (let v = Math.max(0, y - half); v <= Math.min(p.height - 1, y + half); v++) {
      for (let u = Math.max(0, x - half); u <= Math.min(p.width - 1, x + half); u++) {
        sum += pixel(p, u, v);
        count++;
      }
    }
    return sum / count;
  });
}

function halve(p: Plane): Plane {
  return plane(p.width / 2, p.height / 2, (x, y) => {
    const [u, v] = [2 * x, 2 * y];
    return (pixel(p, u, v) + pixel(p, u + 1, v) + pixel(p, u, v + 1) + pixel(p, u + 1, v + 1)) / 4;
  });
}

function std(p: Plane): number {
  const m = mean(p);
  return Math.sqrt(p.data.reduce((sum, v) => sum + (v - m) ** 2, 0) / p.data.length);
}

const BOX_3 = Array<number>(9).fill(1 / 9);
const LAPLACIAN = [0, 1, 0, 1, -4, 1, 0, 1, 0];
const SOBEL_DY = [-1, -2, -1, 0, 0, 0, 1, 2, 1];
const SOBEL_DX = [-1, 0, 1, -2, 0, 2, -1, 0, 1];

/** The twelve features of one patch, by name. */
export function referenceFeatures(patch: Patch): Record<string, number> {
  const area = SIZE * SIZE;
  const lab = Array.from({ length: area }, (_, i) =>
    srgbToLab(patch[i]!, patch[area + i]!, patch[2 * area + i]!),
  );
  const L = plane(SIZE, SIZE, (x, y) => lab[y * SIZE + x]![0]);
  const A = plane(SIZE, SIZE, (x, y) => lab[y * SIZE + x]![1]);
  const B = plane(SIZE, SIZE, (x, y) => lab[y * SIZE + x]![2]);
  const chroma = plane(SIZE, SIZE, (x, y) => Math.hypot(pixel(A, x, y), pixel(B, x, y)));
  const localL = localMean(L, 9);
  const localA = localMean(A, 9);
  const blurred = filterValid(L, BOX_3);

  return {
    l_mean: mean(L),
    l_std: std(blurred),
    a_mean: mean(A),
    b_mean: mean(B),
    chroma_mean: mean(chroma),
    red_spot_frac: share(A, (a, i) => a - localA.data[i]! > 6),
    dark_spot_frac: share(L, (l, i) => localL.data[i]! - l > 6),
    fine_energy: meanAbs(filterValid(L, LAPLACIAN)),
    coarse_energy: meanAbs(filterValid(halve(L), LAPLACIAN)),
    line_energy: Math.max(
      0,
      meanAbs(filterValid(blurred, SOBEL_DY)) - meanAbs(filterValid(blurred, SOBEL_DX)),
    ),
    specular_frac: share(L, (l, i) => l > 80 && chroma.data[i]! < 12),
    red_frac: share(A, (a) => a > 15),
  };
}
