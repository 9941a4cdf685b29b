/**
 * What checking and cleaning a photo costs at intake: `npm run bench:photo-check`.
 *
 * A 12-megapixel JPEG (a real face scaled to 4000 × 3000, with EXIF and GPS) goes through `checkPhoto`
 * (magic bytes, structure walk, header, decode with orientation, scale to 2048 px, metadata-free JPEG).
 * Baseline in the same run: inference's own decode of the same file (`decodeImage`, to its 1024 px working
 * size), which every analysis pays anyway. Prints medians and their ratio.
 */
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { decodeImage } from '../../services/inference/decode.ts';
import { checkPhoto } from '../../services/intake/photo-check.ts';
import { singleFace } from '../inference/support/photos.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 21);
const LIMITS = { maxBytes: 10 * 1024 * 1024, maxPixels: 40_000_000 };

const photo = await sharp(await singleFace('a'))
  .resize(4000, 3000, { fit: 'fill' })
  .withExif({ IFD0: { Make: 'BenchCam' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 2406/100' } })
  .jpeg({ quality: 90 })
  .toBuffer();

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

const baseline = await median(() => decodeImage(photo));
const intake = await median(() => checkPhoto(photo, LIMITS));
const stored = await checkPhoto(photo, LIMITS);
console.log(
  `photo: 4000 × 3000 JPEG, ${(photo.length / 1e6).toFixed(2)} MB; stored: ${stored.image.length} bytes`,
);
console.log(`baseline (inference decode to 1024 px): ${baseline.toFixed(1)} ms median of ${ROUNDS}`);
console.log(`checkPhoto (checks + clean re-encode): ${intake.toFixed(1)} ms median of ${ROUNDS}`);
console.log(`ratio checkPhoto / baseline: ${(intake / baseline).toFixed(2)}`);
