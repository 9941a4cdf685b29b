/**
 * `npm run bench:stability -- [DIR]`: how far each score moves when a photo is re-encoded (JPEG quality 95
 * and 80), resized by 0.75 or mirrored — what the issue asks to stay within 3 points. The test suite checks
 * it on the package's faces; this runs it on every JPEG in DIR (default ../shared/faces, development only),
 * photos a person could send, and prints per change and measure the largest move and how many photos
 * moved by more than 3. A photo the analysis refuses, before or after the change, is counted apart.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import { FaceAnalysis } from '../../services/inference/face-analysis.ts';
import { MEASURES, type Measure } from '../../services/shared/measures.ts';

const dir = resolve(process.argv[2] ?? join(import.meta.dirname, '..', '..', '..', 'shared', 'faces'));
const LIMIT = 3;

const CHANGES: Record<string, (photo: Buffer) => Promise<Buffer>> = {
  'JPEG q95': (photo) => sharp(photo).jpeg({ quality: 95 }).toBuffer(),
  'JPEG q80': (photo) => sharp(photo).jpeg({ quality: 80 }).toBuffer(),
  'resized 0.75': async (photo) => {
    const { width } = await sharp(photo).metadata();
    return sharp(photo)
      .resize(Math.round(width! * 0.75))
      .jpeg({ quality: 95 })
      .toBuffer();
  },
  mirrored: (photo) => sharp(photo).flop().jpeg({ quality: 95 }).toBuffer(),
};

const analysis = await FaceAnalysis.load();
async function scores(photo: Buffer): Promise<Record<Measure, number> | undefined> {
  for await (const event of analysis.analyze(photo)) if (event.kind === 'result') return event.scores;
  return undefined;
}

const files = readdirSync(dir).filter((f) => /\.jpe?g$/i.test(f));
const originals = new Map<string, Record<Measure, number>>();
/** Per change and measure, the photo of the largest move so far and its scores before and after. */
const largest = new Map<string, { file: string; from: number; to: number }>();
for (const file of files) {
  const base = await scores(readFileSync(join(dir, file)));
  if (base) originals.set(file, base);
}
console.log(`${dir}: ${files.length} photos, ${originals.size} analysed (the rest refused)\n`);
console.log(`change        refused  ${MEASURES.map((m) => m.padStart(13)).join('')}`);
for (const [label, change] of Object.entries(CHANGES)) {
  const worst = Object.fromEntries(MEASURES.map((m) => [m, 0])) as Record<Measure, number>;
  const over = Object.fromEntries(MEASURES.map((m) => [m, 0])) as Record<Measure, number>;
  let refused = 0;
  for (const [file, base] of originals) {
    const moved = await scores(await change(readFileSync(join(dir, file))));
    if (!moved) {
      refused++;
      continue;
    }
    for (const m of MEASURES) {
      const delta = Math.abs(moved[m] - base[m]);
      if (delta > worst[m]) largest.set(`${label} ${m}`, { file, from: base[m], to: moved[m] });
      worst[m] = Math.max(worst[m], delta);
      if (delta > LIMIT) over[m]++;
    }
  }
  const cells = MEASURES.map((m) => `${worst[m]} (${over[m]})`.padStart(13)).join('');
  console.log(`${label.padEnd(14)}${String(refused).padStart(7)}  ${cells}`);
}
console.log(`\nEach cell: the largest move in points (how many photos moved by more than ${LIMIT}).`);
console.log(`\nThe largest moves over ${LIMIT}:`);
for (const [cell, { file, from, to }] of largest) {
  if (Math.abs(to - from) > LIMIT) console.log(`  ${cell.padEnd(26)} ${file} ${from} → ${to}`);
}
await analysis.close();
