/**
 * Synthetic changes to a face photo, placed on the skin regions the pipeline itself lays out from the
 * landmarks: redness over both cheeks, or a few small dark spots on them. They let tests check that each
 * measure moves the right way.
 */
import sharp from 'sharp';
import { decodeImage } from '../../../services/inference/decode.ts';
import type { FaceDetector } from '../../../services/inference/face-detector.ts';
import { FaceLandmarker } from '../../../services/inference/landmarks.ts';
import { faceFrame, regionLayout } from '../../../services/inference/regions.ts';

let landmarker: FaceLandmarker | undefined;

async function cheeks(photo: Buffer, detector: FaceDetector) {
  const image = await decodeImage(photo);
  const [face] = await detector.detect(image);
  if (!face) throw new Error('no face to paint on');
  landmarker ??= await FaceLandmarker.load();
  const points = await landmarker.locate(image, face);
  const { u, v, d } = faceFrame(points);
  const layout = regionLayout(points);
  return { image, d, centres: [layout.right_cheek.centre, layout.left_cheek.centre], u, v };
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
