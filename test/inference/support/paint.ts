/**
 * Synthetic changes to a face photo, placed with the pipeline's own detector: redness over both cheeks,
 * or a few small dark spots on them. They let tests check that each measure moves the right way.
 */
import sharp from 'sharp';
import { decodeImage } from '../../../services/inference/decode.ts';
import type { FaceDetector } from '../../../services/inference/face-detector.ts';

async function cheeks(photo: Buffer, detector: FaceDetector) {
  const image = await decodeImage(photo);
  const [face] = await detector.detect(image);
  if (!face) throw new Error('no face to paint on');
  const [right, left] = face.keypoints;
  const d = Math.hypot(left[0] - right[0], left[1] - right[1]);
  const u = [(left[0] - right[0]) / d, (left[1] - right[1]) / d] as const;
  const v = [-u[1], u[0]] as const;
  const at = (eye: readonly [number, number], side: number) =>
    [eye[0] + (side * 0.15 * u[0] + 0.6 * v[0]) * d, eye[1] + (side * 0.15 * u[1] + 0.6 * v[1]) * d] as const;
  return { image, d, centres: [at(right, -1), at(left, 1)], u, v };
}

function overlay(width: number, height: number, shapes: string): Buffer {
  return Buffer.from(
    `<svg width="${width}" height="${height}" xmlns="http://www.w3.org/2000/svg">${shapes}</svg>`,
  );
}

export async function addCheekRedness(photo: Buffer, detector: FaceDetector): Promise<Buffer> {
  const { image, d, centres } = await cheeks(photo, detector);
  const shapes = centres
    .map(
      ([x, y]) =>
        `<ellipse cx="${x}" cy="${y}" rx="${0.3 * d}" ry="${0.26 * d}" fill="rgb(225,30,45)" fill-opacity="0.32"/>`,
    )
    .join('');
  return sharp(photo)
    .composite([{ input: overlay(image.width, image.height, shapes) }])
    .jpeg({ quality: 95 })
    .toBuffer();
}

export async function addDarkSpots(photo: Buffer, detector: FaceDetector): Promise<Buffer> {
  const { image, d, centres, u, v } = await cheeks(photo, detector);
  const offsets = [
    [-0.1, -0.08],
    [0.09, -0.05],
    [-0.05, 0.1],
    [0.11, 0.09],
  ];
  const shapes = centres
    .flatMap(([x, y]) =>
      offsets.map(([a, b]) => {
        const cx = x + (a! * u[0] + b! * v[0]) * d;
        const cy = y + (a! * u[1] + b! * v[1]) * d;
        return `<circle cx="${cx}" cy="${cy}" r="${Math.max(1.5, 0.025 * d)}" fill="rgb(95,60,45)"/>`;
      }),
    )
    .join('');
  return sharp(photo)
    .composite([{ input: overlay(image.width, image.height, shapes) }])
    .jpeg({ quality: 95 })
    .toBuffer();
}
