/**
 * Controlled edits of a real face photo, one per skin measure, graded from faint (strength 1) to strong
 * (strength 3), painted at realistic sizes on the skin regions the pipeline lays out from the landmarks.
 * Sizes are in face widths (jaw to jaw) or eye distances (d). Every edit is deterministic.
 */
import sharp, { type Blend } from 'sharp';
import { decodeImage } from '../../../services/inference/decode.ts';
import type { Point } from '../../../services/inference/face.ts';
import type { FaceDetector } from '../../../services/inference/face-detector.ts';
import type { FaceLandmarker, Landmarks } from '../../../services/inference/landmarks.ts';
import { type FaceFrame, faceFrame, type Region, regionLayout } from '../../../services/inference/regions.ts';
import type { Measure } from '../../../services/shared/measures.ts';

export type Strength = 1 | 2 | 3;

/** Where a face's skin is in its photo: the photo's size, the landmarks, the frame and the regions. */
export interface FaceGeometry {
  readonly width: number;
  readonly height: number;
  readonly points: Landmarks;
  readonly frame: FaceFrame;
  readonly regions: ReturnType<typeof regionLayout>;
}

export async function faceGeometry(
  photo: Buffer,
  detector: FaceDetector,
  landmarker: FaceLandmarker,
): Promise<FaceGeometry> {
  const image = await decodeImage(photo);
  const [face] = await detector.detect(image);
  if (!face) throw new Error('no face to edit');
  const points = await landmarker.locate(image, face);
  const meta = await sharp(photo).metadata();
  if (meta.width !== image.width) throw new Error('edits need photos at their working size');
  return {
    width: image.width,
    height: image.height,
    points,
    frame: faceFrame(points),
    regions: regionLayout(points),
  };
}

/** A point of a region, `a` and `b` in −1..1 across and down its rectangle. */
function inRegion(g: FaceGeometry, region: Region, a: number, b: number): Point {
  const { centre, w, h } = g.regions[region];
  const { u, v, d } = g.frame;
  return [
    centre[0] + ((a * w) / 2) * d * u[0] + ((b * h) / 2) * d * v[0],
    centre[1] + ((a * w) / 2) * d * u[1] + ((b * h) / 2) * d * v[1],
  ];
}

/** A point moved by du eye distances along the eye line and dv down the face. */
function shift(g: FaceGeometry, at: Point, du: number, dv: number): Point {
  const { u, v, d } = g.frame;
  return [at[0] + (du * u[0] + dv * v[0]) * d, at[1] + (du * u[1] + dv * v[1]) * d];
}

/** Deterministic positions spread over a region (a low-discrepancy sequence), inset from its border. */
function spread(count: number, seed: number): [number, number][] {
  return Array.from({ length: count }, (_, i) => {
    const k = i + 1 + seed;
    return [((k * 0.618034) % 1) * 1.5 - 0.75, ((k * 0.754878) % 1) * 1.5 - 0.75];
  });
}

const svg = (g: FaceGeometry, defs: string, body: string) =>
  Buffer.from(
    `<svg width="${g.width}" height="${g.height}" xmlns="http://www.w3.org/2000/svg"><defs>${defs}</defs>${body}</svg>`,
  );

const angle = (g: FaceGeometry) => (Math.atan2(g.frame.u[1], g.frame.u[0]) * 180) / Math.PI;

function ellipse(g: FaceGeometry, at: Point, rx: number, ry: number, attrs: string): string {
  return `<ellipse cx="${at[0]}" cy="${at[1]}" rx="${rx}" ry="${ry}" transform="rotate(${angle(g)} ${at[0]} ${at[1]})" ${attrs}/>`;
}

const CHEEKS: Region[] = ['right_cheek', 'left_cheek'];

function spots(g: FaceGeometry, regions: Region[], perRegion: number, radius: number, gradient: string) {
  return regions
    .flatMap((region, r) =>
      spread(perRegion, r * 7).map(([a, b]) => {
        const [x, y] = inRegion(g, region, a, b);
        return `<circle cx="${x}" cy="${y}" r="${radius}" fill="url(#${gradient})"/>`;
      }),
    )
    .join('');
}

function radial(id: string, colour: string, opacity: number): string {
  return `<radialGradient id="${id}"><stop offset="0" stop-color="${colour}" stop-opacity="${opacity}"/><stop offset="0.6" stop-color="${colour}" stop-opacity="${opacity * 0.8}"/><stop offset="1" stop-color="${colour}" stop-opacity="0"/></radialGradient>`;
}

/** Lines across a region (horizontal in the face's frame), `count` of them, of the given width. */
function lines(g: FaceGeometry, region: Region, count: number, width: number, opacity: number, tilt = 0) {
  const { d } = g.frame;
  return Array.from({ length: count }, (_, i) => {
    const b = count === 1 ? 0 : -0.7 + (1.4 * i) / (count - 1);
    const from = inRegion(g, region, -0.8, b - tilt);
    const to = inRegion(g, region, 0.8, b + tilt);
    const mid = inRegion(g, region, 0, b + 0.08);
    return `<path d="M${from[0]} ${from[1]} Q${mid[0]} ${mid[1]} ${to[0]} ${to[1]}" stroke="rgb(95,62,52)" stroke-opacity="${opacity}" stroke-width="${width * d}" fill="none" stroke-linecap="round" filter="url(#soft)"/>`;
  }).join('');
}

/**
 * Grey fractal noise of the given period (eye distances) inside the regions, for a multiply blend: each
 * pixel darkened by 0 to 2·depth, depth on average, the colour kept. feTurbulence's noise of base frequency
 * f holds half its energy at periods longer than 1.76/f (and little below 1/f), so f is 1.76/period: drawn
 * at 1/period, relief "of 0.1 eye distances" lay at 0.13–0.25, as coarse as tone patches (docs/inference.md).
 */
const TURBULENCE_MEDIAN_PERIOD = 1.76;

function noise(g: FaceGeometry, regions: Region[], period: number, depth: number, seed: number) {
  const { d } = g.frame;
  const k = (5 * depth) / 3;
  const row = `${k} ${k} ${k} 0 ${1 - 3.5 * depth}`;
  // A little beyond the regions, so the noise's own border never falls inside a measured patch.
  const clip = regions
    .map((r) => {
      const { centre, w, h } = g.regions[r];
      const [x, y] = centre;
      // Wider than the region, but not taller: above a cheek lies the skin under the eye.
      return `<rect x="${x - 0.6 * w * d}" y="${y - 0.5 * h * d}" width="${1.2 * w * d}" height="${h * d}" transform="rotate(${angle(g)} ${x} ${y})"/>`;
    })
    .join('');
  const defs = `<filter id="n" x="0" y="0" width="100%" height="100%"><feTurbulence type="fractalNoise" baseFrequency="${TURBULENCE_MEDIAN_PERIOD / (period * d)}" numOctaves="1" seed="${seed}"/><feColorMatrix type="matrix" values="${row}  ${row}  ${row}  0 0 0 0 1"/></filter><clipPath id="c">${clip}</clipPath>`;
  return svg(g, defs, '<rect width="100%" height="100%" filter="url(#n)" clip-path="url(#c)"/>');
}

/** A deterministic generator of numbers in [0, 1) (mulberry32). */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Pores as they are: many small, separate dark pits on skin that is otherwise unchanged, `diameter` across
 * (a soft dark dot, `opacity` at its centre: deeper pits look darker), one in each cell of a grid `spacing`
 * apart (eye distances), placed at random within its cell, so they are spread evenly with no pattern.
 * Over the regions and a little wider, as the noise. Fractal noise of pore-sized period is not this: it
 * darkens half the skin in continuous blobs whose strength itself varies over several periods, which is
 * relief at the texture's scale (docs/inference.md).
 */
function pits(
  g: FaceGeometry,
  regions: Region[],
  spacing: number,
  diameter: number,
  opacity: number,
  seed: number,
) {
  const next = random(seed);
  const { d } = g.frame;
  const dots: string[] = [];
  for (const region of regions) {
    const { w, h } = g.regions[region];
    const across = Math.ceil((1.2 * w) / spacing);
    const down = Math.ceil(h / spacing);
    for (let j = 0; j < down; j++) {
      for (let i = 0; i < across; i++) {
        const du = -0.6 * w + (i + 0.15 + 0.7 * next()) * spacing;
        const dv = -0.5 * h + (j + 0.15 + 0.7 * next()) * spacing;
        const [x, y] = shift(g, g.regions[region].centre, du, dv);
        dots.push(
          `<circle cx="${x.toFixed(2)}" cy="${y.toFixed(2)}" r="${((diameter * d) / 2).toFixed(3)}" fill="url(#pit)"/>`,
        );
      }
    }
  }
  return svg(g, radial('pit', 'rgb(70,45,40)', opacity), dots.join(''));
}

/** The edit aimed at each measure. */
export async function edit(photo: Buffer, g: FaceGeometry, measure: Measure, s: Strength): Promise<Buffer> {
  const { d } = g.frame;
  // The blur's region is the whole photo: by default a filter renders only the shape's bounding box plus
  // 10 % on each side, which cut a blur wider than that off in a hard-edged rectangle (docs/inference.md).
  const soft = (sigma: number) =>
    `<filter id="soft" filterUnits="userSpaceOnUse" x="0" y="0" width="${g.width}" height="${g.height}"><feGaussianBlur stdDeviation="${sigma * d}"/></filter>`;
  const over = (input: Buffer, blend: Blend = 'over') =>
    sharp(photo).composite([{ input, blend }]).jpeg({ quality: 95 }).toBuffer();
  switch (measure) {
    case 'acne':
      return over(
        svg(g, radial('p', 'rgb(200,45,50)', 0.85), spots(g, [...CHEEKS, 'chin'], 2 * s, 0.03 * d, 'p')),
      );
    case 'dark_spots':
      return over(svg(g, radial('m', 'rgb(105,68,50)', 0.85), spots(g, CHEEKS, 2 * s, 0.035 * d, 'm')));
    case 'wrinkles':
      return over(
        svg(
          g,
          soft(0.004),
          lines(g, 'forehead', 3, 0.008 + 0.002 * s, 0.15 + 0.15 * s) +
            lines(g, 'right_crows_feet', 3, 0.006 + 0.002 * s, 0.15 + 0.15 * s, 0.3) +
            lines(g, 'left_crows_feet', 3, 0.006 + 0.002 * s, 0.15 + 0.15 * s, -0.3),
        ),
      );
    case 'dark_circles':
      return over(
        svg(
          g,
          soft(0.015),
          (['right_under_eye', 'left_under_eye'] as const)
            .map((r) =>
              ellipse(
                g,
                shift(g, g.regions[r].centre, 0, -0.02),
                0.15 * d,
                0.045 * d,
                `fill="rgb(80,50,60)" fill-opacity="${0.12 * s}" filter="url(#soft)"`,
              ),
            )
            .join(''),
        ),
      );
    case 'oiliness':
      return over(
        svg(
          g,
          radial('s', 'rgb(255,252,245)', 0.3 + 0.2 * s),
          ellipse(g, g.regions.forehead.centre, 0.25 * d, 0.08 * d, 'fill="url(#s)"') +
            ellipse(g, g.regions.nose.centre, 0.07 * d, 0.08 * d, 'fill="url(#s)"'),
        ),
      );
    case 'pores':
      // Enlarged pores: 0.3 mm across, 0.8 mm apart (an eye distance is about 63 mm), deeper as s grows.
      return over(pits(g, CHEEKS, 0.0127, 0.0048, 0.3 * s, 11));
    case 'texture':
      return over(noise(g, CHEEKS, 0.1, 0.08 * s, 5), 'multiply');
    case 'uneven_tone':
      return over(
        svg(
          g,
          soft(0.035),
          CHEEKS.flatMap((r) =>
            [
              [-0.45, -0.35, 'rgb(90,72,64)'],
              [0.4, 0.4, 'rgb(90,72,64)'],
              [0.35, -0.4, 'rgb(255,250,245)'],
            ].map(([a, b, colour]) =>
              ellipse(
                g,
                inRegion(g, r, a as number, b as number),
                0.08 * d,
                0.065 * d,
                `fill="${colour}" fill-opacity="${0.13 * s}" filter="url(#soft)"`,
              ),
            ),
          ).join(''),
        ),
      );
    case 'redness':
      return over(
        svg(
          g,
          soft(0.04),
          CHEEKS.map((r) =>
            ellipse(
              g,
              g.regions[r].centre,
              0.24 * d,
              0.2 * d,
              `fill="rgb(215,40,55)" fill-opacity="${0.06 * s}" filter="url(#soft)"`,
            ),
          ).join(''),
        ),
      );
    case 'dullness': {
      const k = 1 - 0.06 * s;
      return sharp(photo)
        .modulate({ saturation: k })
        .linear(k, (1 - k) * 150)
        .jpeg({ quality: 95 })
        .toBuffer();
    }
  }
}
