/**
 * Test photos. The group photos ship with @vladmandic/face-api (MIT, demo/sample1–6.jpg, 1920 px wide);
 * single-face photos are crops of them around one face each, the rectangles chosen once by running the
 * detector on the group photos. Other cases (no face, dark, blurred) are made from them with sharp.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import zlib from 'node:zlib';
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

/**
 * Smaller faces of the same group photos, same layout: cropped, then enlarged 1.6× (Lanczos; at most to the 1024 px working size) so that
 * they pass the face_too_small gate. Softer than the four above, they widen the set of faces the
 * controlled edits run on.
 */
export const MORE_FACES = {
  e: [2, 705, 84, 543],
  f: [3, 842, 35, 695],
  g: [3, 1300, 189, 536],
  h: [4, 1086, 25, 553],
  i: [5, 129, 713, 657],
  j: [6, 953, 145, 662],
  k: [6, 46, 345, 620],
} as const;

export type MoreFaceName = keyof typeof MORE_FACES;

export async function moreFace(name: MoreFaceName): Promise<Buffer> {
  const [n, left, top, size] = MORE_FACES[name];
  return sharp(groupPhoto(n))
    .extract({ left, top, width: size, height: size })
    .resize(Math.min(1024, Math.round(size * 1.6)), null, { kernel: 'lanczos3' })
    .jpeg({ quality: 95 })
    .toBuffer();
}

/** Single faces clearly turned away from the camera, same layout. */
export const TURNED_FACES = {
  three_quarter: [5, 430, 317, 477],
  looking_aside: [1, 209, 200, 579],
} as const;

export async function turnedFace(name: keyof typeof TURNED_FACES): Promise<Buffer> {
  const [n, left, top, size] = TURNED_FACES[name];
  return sharp(groupPhoto(n))
    .extract({ left, top, width: size, height: size })
    .jpeg({ quality: 95 })
    .toBuffer();
}

export async function singleFace(name: FaceName): Promise<Buffer> {
  const [n, left, top, size] = SINGLE_FACES[name];
  return sharp(groupPhoto(n))
    .extract({ left, top, width: size, height: size })
    .jpeg({ quality: 95 })
    .toBuffer();
}

/** A landscape without anyone in it. */
export function landscape(): Promise<Buffer> {
  const svg = `<svg width="800" height="600"><rect width="800" height="350" fill="#5a8cc8"/>
    <rect y="350" width="800" height="250" fill="#3a7d2c"/><circle cx="650" cy="120" r="60" fill="#ffd34d"/>
    <path d="M0 350 L200 200 L380 350 Z" fill="#6b6b6b"/></svg>`;
  return sharp(Buffer.from(svg)).jpeg().toBuffer();
}

/**
 * A PNG that claims 30000×30000 pixels in a few dozen bytes: a decompression bomb's header, which must be
 * refused before anything is decoded.
 */
export function pixelBomb(): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(30000, 0);
  header.writeUInt32BE(30000, 4);
  header.writeUInt8(8, 8); // bit depth
  header.writeUInt8(2, 9); // truecolour
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(Buffer.alloc(64))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
