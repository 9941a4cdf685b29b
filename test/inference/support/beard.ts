/**
 * A synthetic beard painted on a face photo: short dark hairs over the jaw, the chin and the upper lip,
 * up the cheeks to a line from the sideburn to the mouth's corner — below the cheekbones — and the lips
 * left clear. Graded from stubble (strength 1: short, sparse hairs) to a full beard (3: long, dense hairs
 * on skin darkened beneath them). Deterministic; laid out from the 68 landmarks, sized in eye distances.
 */
import sharp from 'sharp';
import type { Point } from '../../../services/inference/face.ts';
import { type FaceGeometry, random, type Strength } from './edits.ts';

/** The beard's outline and the lips' (in image pixels). */
export function beardOutline(g: FaceGeometry): { beard: Point[]; lips: Point[] } {
  const { u, v, d } = g.frame;
  const p = (i: number) => g.points[i]!;
  const at = (q: Point, du: number, dv: number): Point => [
    q[0] + (du * u[0] + dv * v[0]) * d,
    q[1] + (du * u[1] + dv * v[1]) * d,
  ];
  const mix = (a: Point, b: Point, t: number): Point => [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];
  // The jaw from ear to ear (points 2–14), a little beyond it: a beard reaches past the jaw line.
  const centre = p(33);
  const jaw = Array.from({ length: 13 }, (_, k) => {
    const q = p(2 + k);
    return mix(centre, q, 1.06);
  });
  // Up the cheeks: from the sideburn (point 1) down to the mouth's corner, then the moustache under the nose.
  const right = [
    at(mix(p(1), p(2), 0.5), 0, 0),
    at(mix(p(3), p(48), 0.45), 0, -0.06),
    at(p(48), -0.05, -0.06),
  ];
  const left = [
    at(p(54), 0.05, -0.06),
    at(mix(p(13), p(54), 0.45), 0, -0.06),
    at(mix(p(15), p(14), 0.5), 0, 0),
  ];
  const moustache = [31, 32, 33, 34, 35].map((i) => at(p(i), 0, 0.04));
  return {
    beard: [...right, ...moustache, ...left, ...jaw.reverse()],
    lips: Array.from({ length: 12 }, (_, k) => p(48 + k)),
  };
}

/** The photo with a beard of the given strength (1 stubble … 3 full). */
export async function addBeard(photo: Buffer, g: FaceGeometry, s: Strength): Promise<Buffer> {
  const { u, v, d } = g.frame;
  const { beard, lips } = beardOutline(g);
  const path = (points: Point[]) =>
    `M${points.map(([x, y]) => `${x.toFixed(1)} ${y.toFixed(1)}`).join(' L')} Z`;
  const next = random(13 + s);
  const xs = beard.map((q) => q[0]);
  const ys = beard.map((q) => q[1]);
  const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  // Hairs: about 0.005 eye distances wide (a pixel or less), 0.012 (stubble) to 0.06 (a full beard) long,
  // growing down the face ± 35°, dark brown at random opacity.
  const length = [0, 0.012, 0.03, 0.06][s]! * d;
  const count = Math.round(([0, 0.3, 1, 2.2][s]! * (x1 - x0) * (y1 - y0)) / (length * 0.006 * d));
  const hairs: string[] = [];
  for (let k = 0; k < count; k++) {
    const x = x0 + next() * (x1 - x0);
    const y = y0 + next() * (y1 - y0);
    const turn = (next() - 0.5) * 1.2;
    const dx = (Math.sin(turn) * u[0] + Math.cos(turn) * v[0]) * length * (0.6 + 0.8 * next());
    const dy = (Math.sin(turn) * u[1] + Math.cos(turn) * v[1]) * length * (0.6 + 0.8 * next());
    const shade = Math.round(20 + 45 * next());
    hairs.push(
      `<path d="M${x.toFixed(1)} ${y.toFixed(1)} l${dx.toFixed(1)} ${dy.toFixed(1)}" stroke="rgb(${shade + 10},${shade},${shade - 5})" stroke-opacity="${(0.35 + 0.55 * next()).toFixed(2)}"/>`,
    );
  }
  const under = [0, 0.1, 0.3, 0.55][s]!;
  const svg = `<svg width="${g.width}" height="${g.height}" xmlns="http://www.w3.org/2000/svg"><defs>
<filter id="edge" filterUnits="userSpaceOnUse" x="0" y="0" width="${g.width}" height="${g.height}"><feGaussianBlur stdDeviation="${0.025 * d}"/></filter>
<mask id="beard" maskUnits="userSpaceOnUse" x="0" y="0" width="${g.width}" height="${g.height}"><path d="${path(beard)} ${path(lips)}" fill-rule="evenodd" fill="white" filter="url(#edge)"/></mask></defs>
<g mask="url(#beard)"><path d="${path(beard)} ${path(lips)}" fill-rule="evenodd" fill="rgb(45,32,26)" fill-opacity="${under}"/>
<g stroke-width="${(0.005 * d).toFixed(2)}" stroke-linecap="round" fill="none">${hairs.join('')}</g></g></svg>`;
  return sharp(photo)
    .composite([{ input: Buffer.from(svg) }])
    .jpeg({ quality: 95 })
    .toBuffer();
}
