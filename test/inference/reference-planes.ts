/**
 * Planes and the filters of the float64 reference of the skin-measures model
 * (measures-graph-reference.ts): written from docs/measures-graph.md, sharing no code with the graph.
 */

export const SIZE = 64;

/** A single-channel image. */
export type Plane = { width: number; height: number; data: Float64Array };

export function plane(width: number, height: number, at: (x: number, y: number) => number): Plane {
  const data = new Float64Array(width * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data[y * width + x] = at(x, y);
  return { width, height, data };
}

export function pixel(p: Plane, x: number, y: number): number {
  return p.data[y * p.width + x]!;
}

export function mean(p: Plane): number {
  return p.data.reduce((sum, v) => sum + v, 0) / p.data.length;
}

export function share(p: Plane, test: (v: number, i: number) => boolean): number {
  return p.data.filter(test).length / p.data.length;
}

/** Gaussian blur of σ pixels, radius ⌈3σ⌉, taps summing to 1, pixels outside the image taken as 0. */
export function gaussianZeroPadded(p: Plane, sigma: number): Plane {
  const radius = Math.ceil(3 * sigma);
  const taps = Array.from({ length: 2 * radius + 1 }, (_, i) =>
    Math.exp(-((i - radius) ** 2) / (2 * sigma ** 2)),
  );
  const total = taps.reduce((sum, t) => sum + t, 0);
  const at = (q: Plane, x: number, y: number) =>
    x >= 0 && y >= 0 && x < q.width && y < q.height ? pixel(q, x, y) : 0;
  const across = plane(p.width, p.height, (x, y) =>
    taps.reduce((sum, t, i) => sum + (t / total) * at(p, x + i - radius, y), 0),
  );
  return plane(p.width, p.height, (x, y) =>
    taps.reduce((sum, t, i) => sum + (t / total) * at(across, x, y + i - radius), 0),
  );
}

/** Σ over the Gaussian of (value × weight) / Σ of weight: the weighted Gaussian mean around each pixel. */
export function gaussianMean(p: Plane, weights: Plane, sigma: number, least: number): Plane {
  const sum = gaussianZeroPadded(
    plane(p.width, p.height, (x, y) => pixel(p, x, y) * pixel(weights, x, y)),
    sigma,
  );
  const share = gaussianZeroPadded(weights, sigma);
  return plane(p.width, p.height, (x, y) => pixel(sum, x, y) / Math.max(pixel(share, x, y), least));
}

/**
 * 1 where no spot lies within the window (window×window, the image padded by `pad` on every side), else
 * 0: the output is as large as a valid filter's, window − 1 − 2·pad pixels smaller each way.
 */
export function keepAwayFrom(mask: Plane, window: number, pad: number): Plane {
  const size = mask.width + 2 * pad - window + 1;
  return plane(size, size, (x, y) => {
    for (let v = y - pad; v < y - pad + window; v++) {
      for (let u = x - pad; u < x - pad + window; u++) {
        if (u >= 0 && v >= 0 && u < mask.width && v < mask.height && pixel(mask, u, v) > 0) return 0;
      }
    }
    return 1;
  });
}

export function weightedMean(p: Plane, w: Plane): number {
  let sum = 0;
  let total = 0;
  for (let i = 0; i < p.data.length; i++) {
    sum += p.data[i]! * w.data[i]!;
    total += w.data[i]!;
  }
  return sum / p.data.length / (total / p.data.length + 1e-6);
}

export function weightedStd(p: Plane, w: Plane): number {
  const m = weightedMean(p, w);
  return Math.sqrt(
    weightedMean(
      plane(p.width, p.height, (x, y) => (pixel(p, x, y) - m) ** 2),
      w,
    ),
  );
}

/**
 * The largest (or smallest) value of each pixel's window×window neighbourhood inside the image: flat
 * dilation (erosion).
 */
export function extreme(p: Plane, window: number, pick: (a: number, b: number) => number): Plane {
  const half = (window - 1) / 2;
  return plane(p.width, p.height, (x, y) => {
    let best = pixel(p, x, y);
    for (let v = Math.max(0, y - half); v <= Math.min(p.height - 1, y + half); v++)
      for (let u = Math.max(0, x - half); u <= Math.min(p.width - 1, x + half); u++)
        best = pick(best, pixel(p, u, v));
    return best;
  });
}

export const closing = (p: Plane, window: number) => extreme(extreme(p, window, Math.max), window, Math.min);
export const opening = (p: Plane, window: number) => extreme(extreme(p, window, Math.min), window, Math.max);
export const negated = (p: Plane) => plane(p.width, p.height, (x, y) => -pixel(p, x, y));

/** Eroded by a square, then grown back by dilations by the same square, each no higher than `p`. */
export function openingByReconstruction(p: Plane, square = 5, steps = 3): Plane {
  let marker = extreme(p, square, Math.min);
  for (let step = 0; step < steps; step++) {
    const grown = extreme(marker, square, Math.max);
    marker = plane(p.width, p.height, (x, y) => Math.min(pixel(grown, x, y), pixel(p, x, y)));
  }
  return marker;
}
