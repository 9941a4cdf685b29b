/**
 * Test photos. The group photos ship with @vladmandic/face-api (MIT, demo/sample1–6.jpg, 1920 px wide);
 * single-face photos are crops of them around one face each, the rectangles chosen once by running the
 * detector on the group photos. Other cases (no face, dark, blurred) are made from them with sharp.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import sharp from 'sharp';

const require = createRequire(import.meta.url);
const DEMO = join(dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo');

export function groupPhoto(n: 1 | 2 | 3 | 4 | 5 | 6): Buffer {
  return readFileSync(join(DEMO, `sample${n}.jpg`));
}

/** One face each, as [sample, left, top, size] in the original 1920 px photos. */
export const SINGLE_FACES = {
  a: [3, 404, 197, 583],
  b: [6, 478, 221, 573],
  c: [2, 1295, 36, 524],
  d: [1, 648, 262, 572],
} as const;

export type FaceName = keyof typeof SINGLE_FACES;

export async function singleFace(name: FaceName): Promise<Buffer> {
  const [n, left, top, size] = SINGLE_FACES[name];
  return sharp(groupPhoto(n))
    .extract({ left, top, width: size, height: size })
    .jpeg({ quality: 95 })
    .toBuffer();
}
