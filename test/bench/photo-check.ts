/**
 * What checking and cleaning a photo costs at intake: `npm run bench:photo-check`.
 *
 * A 12-megapixel JPEG and a 2048 px one (a real face scaled, with EXIF and GPS) go through `checkPhoto`
 * (magic bytes, structure walk, header, decode with orientation, scale to 2048 px, metadata-free JPEG).
 * Baseline in the same run: inference's own decode of each file (`decodeImage`, to its 1024 px working
 * size), which every analysis pays anyway. Prints medians and their ratio.
 */
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { decodeImage } from '../../services/inference/decode.ts';
import { checkPhoto } from '../../services/intake/photo-check.ts';
import { singleFace } from '../inference/support/photos.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 21);
const LIMITS = { maxBytes: 10 * 1024 * 1024, maxPixels: 40_000_000 };

/** A real face at `width` × `height`, with EXIF and GPS as a phone writes them. */
async function photoOf(width: number, height: number): Promise<Buffer> {
  return sharp(await singleFace('a'))
    .resize(width, height, { fit: 'fill' })
    .withExif({
      IFD0: { Make: 'BenchCam' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 2406/100' },
    })
    .jpeg({ quality: 90 })
    .toBuffer();
}

async function median(run: () => Promise<unknown>): Promise<number> {
  await run(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

// 12 MP as a camera takes it (a direct caller), 2048 px as the upload page sends it.
for (const [width, height] of [
  [4000, 3000],
  [2048, 1536],
] as const) {
  const photo = await photoOf(width, height);
  const baseline = await median(() => decodeImage(photo));
  const intake = await median(() => checkPhoto(photo, LIMITS));
  console.log(
    `${width} × ${height} JPEG (${(photo.length / 1e6).toFixed(2)} MB): inference decode ${baseline.toFixed(1)} ms, ` +
      `checkPhoto ${intake.toFixed(1)} ms (medians of ${ROUNDS}); ratio ${(intake / baseline).toFixed(2)}`,
  );
}
