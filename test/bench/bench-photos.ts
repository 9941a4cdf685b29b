/**
 * The photos bench:inference times, shared by its stage-by-stage and fingerprint companions: package face
 * b letterboxed into a 12-megapixel and a 1920 px JPEG, so both decode to the same working image.
 */
import sharp from 'sharp';
import { singleFace } from '../inference/support/photos.ts';

const BENCH_SIZES = [
  ['12 MP (4000×3000)', 4000, 3000],
  ['1920 px (1920×1440)', 1920, 1440],
] as const;

type BenchPhoto = (typeof BENCH_SIZES)[number][0];

export async function benchPhotos(): Promise<Record<BenchPhoto, Buffer> & Record<string, Buffer>> {
  const face = await singleFace('b');
  const photos = {} as Record<BenchPhoto, Buffer>;
  for (const [label, width, height] of BENCH_SIZES)
    photos[label] = await sharp(face)
      .resize(width, height, { fit: 'contain', background: '#776655' })
      .jpeg({ quality: 90 })
      .toBuffer();
  return photos;
}
