/**
 * A face lit from one side, simulated: the whole photo multiplied in linear light by a smooth ramp across
 * the face, 1 on the lit side and `k` on the other (0.7: a mild side light, 0.35: one side in shade). The
 * ramp runs along the eye line from the jaw's one end (landmark 0 or 16) to the other, or for light from
 * above down the face from the brows raised 0.6 eye distances to the chin (landmark 8); beyond its ends it
 * holds 1 and `k`. Applied to every pixel (hair, background and all), as a light would be, then re-encoded
 * as JPEG at quality 95 like the other edits. Deterministic.
 */
import sharp from 'sharp';
import type { FaceGeometry } from './edits.ts';
import { linearOf, srgbOf } from './skin-tone.ts';

/** Where the light comes from, in the photo: the image's left or right, or above the face. */
export type LitSide = 'left' | 'right' | 'top';

const LINEAR = Float64Array.from({ length: 256 }, (_, c) => linearOf(c));

/** The light's gain at each pixel, 1 on the lit side to `k` on the other. */
export function lightField(g: FaceGeometry, k: number, lit: LitSide): Float64Array {
  const { u, v, d } = g.frame;
  const p = (i: number) => g.points[i]!;
  const along = lit === 'top' ? v : u;
  const at = (x: number, y: number) => x * along[0] + y * along[1];
  let from: number;
  let to: number;
  if (lit === 'top') {
    const brows = Math.min(...[19, 24].map((i) => at(p(i)[0], p(i)[1])));
    from = brows - 0.6 * d;
    to = at(p(8)[0], p(8)[1]);
  } else {
    // u runs from the subject's right (the image's left) to the subject's left.
    const [a, b] = [at(p(0)[0], p(0)[1]), at(p(16)[0], p(16)[1])];
    [from, to] = lit === 'left' ? [a, b] : [b, a];
  }
  const gains = new Float64Array(g.width * g.height);
  for (let y = 0; y < g.height; y++) {
    for (let x = 0; x < g.width; x++) {
      const t = Math.min(1, Math.max(0, (at(x, y) - from) / (to - from)));
      gains[y * g.width + x] = 1 + (k - 1) * t;
    }
  }
  return gains;
}

/** The photo under a side light falling from 1 on the `lit` side to `k` on the other. */
export async function sideLight(
  photo: Buffer,
  g: FaceGeometry,
  k: number,
  lit: LitSide = 'left',
): Promise<Buffer> {
  const gains = lightField(g, k, lit);
  const { data, info } = await sharp(photo).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  if (info.width !== g.width || info.height !== g.height)
    throw new Error('side light needs the photo at its working size');
  const out = Buffer.alloc(data.length);
  for (let i = 0; i < gains.length; i++) {
    for (let c = 0; c < 3; c++) out[3 * i + c] = srgbOf(LINEAR[data[3 * i + c]!]! * gains[i]!);
  }
  return sharp(out, { raw: { width: info.width, height: info.height, channels: 3 } })
    .jpeg({ quality: 95 })
    .toBuffer();
}
