/**
 * A darker (or lighter) skin on the same face: the skin's pixels scaled by `factor` in linear light, the
 * eyes, brows, lips, nostrils, hair and background kept as they are — the same person's spots, lines, pores
 * and shine, at another skin tone. What is skin is decided twice, both from the face itself:
 * - where: inside the face's outline (jaw line, landmarks 0–16, closed over the forehead 0.9 eye distances
 *   above the brows), with the eyes' openings (36–47) and the lips (48–59) cut out, and the brows (17–26) as a
 *   line 0.04 eye distances thick (the colour test below takes the rest of a dark brow), with sharp edges (a wider or blurred hole leaves a ring of undarkened
 *   skin around each feature, which reads as contrast no skin tone has); the outline blurred over 0.03 eye
 *   distances;
 * - what: a pixel's linear luminance against the skin around it (its Gaussian-like mean over LOCAL_SIGMA eye
 *   distances): from 0.35 of it down it is not skin (nostrils, lashes, strands of hair, shadows of a frame),
 *   fully skin from 0.55 up, a ramp between (so a dark pixel inside the outline keeps its own lightness);
 *   and against the skin's own median (sampled on the cheeks, forehead and nose): from 0.1 of it down it is
 *   not skin (dark hair over the face), fully from 0.2. Skin in shade is skin: judged against the whole
 *   face's median alone (0.35 to 0.55 of it, before), the shaded side of a side-lit face (d, e: a quarter
 *   to a third of the cheeks) was darkened less than its lit side, or not at all, so at ×0.4 and ×0.25 it
 *   came out lighter than the lit skin with a ragged edge: shading turned inside out, which read as texture
 *   and uneven tone (docs/inference.md, "Skin tone alone").
 * Deterministic; re-encoded as JPEG at quality 95, as the other edits are.
 */
import sharp from 'sharp';
import type { Point } from '../../../services/inference/face.ts';
import { toLinear, toSrgb } from '../../../services/inference/pixel-math.ts';
import { regionCorners } from '../../../services/inference/regions.ts';
import type { FaceGeometry } from './edits.ts';

/** An 8-bit sRGB value in linear light (0–1). */
export const linearOf = (c: number) => toLinear(c / 255);
/** A value in linear light as an 8-bit sRGB value, clipped at black and white. */
export const srgbOf = (l: number) => Math.round(255 * Math.min(1, Math.max(0, toSrgb(l))));
const LINEAR = Float64Array.from({ length: 256 }, (_, c) => linearOf(c));

/** Luminance below NOT_SKIN × the skin around it is not skin; from SKIN × it, it is. */
const NOT_SKIN = 0.35;
const SKIN = 0.55;
/** σ of the mean of the skin around a pixel, in eye distances: wider than a nostril or a strand of hair. */
const LOCAL_SIGMA = 0.1;
/** Luminance below NOT_SKIN_FACE × the skin's median is not skin (dark hair); from SKIN_FACE × it, it is. */
const NOT_SKIN_FACE = 0.1;
const SKIN_FACE = 0.2;

/** Where the skin is, 0..1 per pixel, from the landmarks alone (before the colour test). */
async function outlineMask(g: FaceGeometry): Promise<Uint8Array> {
  const { v, d } = g.frame;
  const p = (i: number) => g.points[i]!;
  const up = (q: Point, dv: number): Point => [q[0] + dv * v[0] * d, q[1] + dv * v[1] * d];
  const path = (points: Point[]) =>
    `M${points.map(([x, y]) => `${x.toFixed(1)} ${y.toFixed(1)}`).join(' L')} Z`;
  const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, k) => p(a + k));
  // The jaw, then back over the forehead: the brows raised by 0.9 eye distances, from the left to the right.
  const outline = [
    ...range(0, 16),
    up(p(16), -0.55),
    ...range(17, 26)
      .reverse()
      .map((q) => up(q, -0.9)),
    up(p(0), -0.55),
  ];
  // The eyes' openings and the lips as they are, the brows (landmarks along their middle) 0.04 eye distances
  // thick: a hole wider than the feature leaves a ring of lighter skin around it, which is no skin tone.
  const holes = [
    [range(36, 41), 0.03],
    [range(42, 47), 0.03],
    [range(17, 21), 0.04],
    [range(22, 26), 0.04],
    [range(48, 59), 0.03],
  ]
    .map(
      ([points, width]) =>
        `<path d="${path(points as Point[])}" fill="black" stroke="black" stroke-width="${((width as number) * d).toFixed(1)}" stroke-linejoin="round"/>`,
    )
    .join('');
  const svg = `<svg width="${g.width}" height="${g.height}" xmlns="http://www.w3.org/2000/svg"><defs>
<filter id="edge" filterUnits="userSpaceOnUse" x="0" y="0" width="${g.width}" height="${g.height}"><feGaussianBlur stdDeviation="${0.03 * d}"/></filter></defs>
<rect width="${g.width}" height="${g.height}" fill="black"/><path d="${path(outline)}" fill="white" filter="url(#edge)"/>${holes}</svg>`;
  const { data } = await sharp(Buffer.from(svg))
    .extractChannel(0)
    .raw()
    .toBuffer({ resolveWithObject: true });
  return new Uint8Array(data.buffer, data.byteOffset, data.length);
}

/** The skin's median linear luminance, over the cheeks, forehead and nose rectangles. */
function skinMedian(g: FaceGeometry, lum: Float64Array): number {
  const values: number[] = [];
  for (const region of ['right_cheek', 'left_cheek', 'forehead', 'nose'] as const) {
    const [a, b, , c] = regionCorners(g.regions[region], g.frame);
    for (let i = 0; i <= 20; i++) {
      for (let j = 0; j <= 20; j++) {
        const x = Math.round(a![0] + ((b![0] - a![0]) * i) / 20 + ((c![0] - a![0]) * j) / 20);
        const y = Math.round(a![1] + ((b![1] - a![1]) * i) / 20 + ((c![1] - a![1]) * j) / 20);
        if (x >= 0 && y >= 0 && x < g.width && y < g.height) values.push(lum[y * g.width + x]!);
      }
    }
  }
  values.sort((x, y) => x - y);
  return values[values.length >> 1] ?? 0;
}

/** How much of each pixel is skin, 0..1 (the outline times the colour test). */
export async function skinWeights(photo: Buffer, g: FaceGeometry): Promise<Float64Array> {
  const { data } = await sharp(photo).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const n = g.width * g.height;
  const lum = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    lum[k] =
      0.2126 * LINEAR[data[3 * k]!]! +
      0.7152 * LINEAR[data[3 * k + 1]!]! +
      0.0722 * LINEAR[data[3 * k + 2]!]!;
  }
  const median = skinMedian(g, lum);
  const around = blurred(lum, g.width, g.height, LOCAL_SIGMA * g.frame.d);
  const outline = await outlineMask(g);
  const ramp = (x: number, from: number, to: number) => Math.min(1, Math.max(0, (x - from) / (to - from)));
  const weights = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    const colour =
      ramp(lum[k]! / around[k]!, NOT_SKIN, SKIN) * ramp(lum[k]! / median, NOT_SKIN_FACE, SKIN_FACE);
    weights[k] = (outline[k]! / 255) * colour;
  }
  return weights;
}

/**
 * The plane blurred by three box passes along the rows and three down the columns (nearly a Gaussian of σ
 * `sigma` pixels), each box over the values inside the image only.
 */
function blurred(values: Float64Array, width: number, height: number, sigma: number): Float64Array {
  const half = Math.max(1, Math.round((Math.sqrt(4 * sigma * sigma + 1) - 1) / 2));
  let from = Float64Array.from(values);
  let to = new Float64Array(values.length);
  const pass = (lines: number, length: number, lineStep: number, step: number) => {
    for (let line = 0; line < lines; line++) {
      const start = line * lineStep;
      let sum = 0;
      let count = 0;
      for (let j = 0; j < Math.min(half, length); j++, count++) sum += from[start + j * step]!;
      for (let i = 0; i < length; i++) {
        if (i + half < length) {
          sum += from[start + (i + half) * step]!;
          count++;
        }
        if (i - half - 1 >= 0) {
          sum -= from[start + (i - half - 1) * step]!;
          count--;
        }
        to[start + i * step] = sum / count;
      }
    }
    [from, to] = [to, from];
  };
  for (let k = 0; k < 3; k++) {
    pass(height, width, width, 1);
    pass(width, height, 1, width);
  }
  return from;
}

/** The photo with its skin's linear light scaled by `factor` (0.25: a much darker skin). */
export async function skinTone(photo: Buffer, g: FaceGeometry, factor: number): Promise<Buffer> {
  const weights = await skinWeights(photo, g);
  const { data, info } = await sharp(photo).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const out = Buffer.alloc(data.length);
  for (let k = 0; k < weights.length; k++) {
    const scale = 1 + (factor - 1) * weights[k]!;
    for (let c = 0; c < 3; c++) out[3 * k + c] = srgbOf(LINEAR[data[3 * k + c]!]! * scale);
  }
  return sharp(out, { raw: { width: info.width, height: info.height, channels: 3 } })
    .jpeg({ quality: 95 })
    .toBuffer();
}
