/**
 * Glasses painted on a face photo: two rounded rims around the eyes, a bridge and the temples, dark as
 * most frames are, `thickness` in eye distances (a real frame's rim is about 0.03–0.08 of the distance
 * between the eyes). Laid out from the landmarks, as the pipeline's regions are.
 */
import sharp from 'sharp';
import type { Point } from '../../../services/inference/face.ts';
import { meanOf } from '../../../services/inference/regions.ts';
import type { FaceGeometry } from './edits.ts';

export async function paintGlasses(photo: Buffer, g: FaceGeometry, thickness: number): Promise<Buffer> {
  const { u, v, d } = g.frame;
  const angle = (Math.atan2(u[1], u[0]) * 180) / Math.PI;
  const at = (p: Point, du: number, dv: number): Point => [
    p[0] + (du * u[0] + dv * v[0]) * d,
    p[1] + (du * u[1] + dv * v[1]) * d,
  ];
  const rim = (eye: Point) => {
    const [cx, cy] = at(eye, 0, 0.06);
    const [w, h] = [0.78 * d, 0.5 * d];
    return `<rect x="${cx - w / 2}" y="${cy - h / 2}" width="${w}" height="${h}" rx="${0.14 * d}" transform="rotate(${angle} ${cx} ${cy})"/>`;
  };
  const line = (a: Point, b: Point) => `<line x1="${a[0]}" y1="${a[1]}" x2="${b[0]}" y2="${b[1]}"/>`;
  const right = meanOf(g.points, [36, 37, 38, 39, 40, 41]);
  const left = meanOf(g.points, [42, 43, 44, 45, 46, 47]);
  const frame =
    rim(right) +
    rim(left) +
    line(at(right, 0.39, -0.05), at(left, -0.39, -0.05)) +
    line(at(right, -0.39, -0.08), at(right, -0.75, -0.1)) +
    line(at(left, 0.39, -0.08), at(left, 0.75, -0.1));
  const svg = `<svg width="${g.width}" height="${g.height}" xmlns="http://www.w3.org/2000/svg"><g fill="none" stroke="rgb(25,20,20)" stroke-width="${thickness * d}">${frame}</g></svg>`;
  return sharp(photo)
    .composite([{ input: Buffer.from(svg) }])
    .jpeg({ quality: 95 })
    .toBuffer();
}
