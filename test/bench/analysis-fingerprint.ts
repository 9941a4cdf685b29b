/**
 * `node test/bench/analysis-fingerprint.ts [--compare BEFORE.json] [DIR]`: what the face analysis answers
 * for a fixed set of photos — the package's test faces (single, enlarged, turned, group), the benchmark's
 * 12 MP and 1920 px photos, and every JPEG in DIR (e.g. ../shared/faces, development only) — as JSON
 * on stdout: the outcome, every raw value, score and quality figure at full precision. A change meant to
 * make the analysis faster without changing its answers is checked by writing this before and comparing
 * after: --compare prints, per photo, any outcome that differs and the largest raw and score differences.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { FaceAnalysis, type FaceAnalysisEvent } from '../../services/inference/face-analysis.ts';
import {
  type FaceName,
  groupPhoto,
  landscape,
  MORE_FACES,
  type MoreFaceName,
  moreFace,
  SINGLE_FACES,
  singleFace,
  TURNED_FACES,
  turnedFace,
} from '../inference/support/photos.ts';
import { benchPhotos } from './bench-photos.ts';

type Answer = Extract<FaceAnalysisEvent, { kind: 'result' | 'failure' }>;

const args = process.argv.slice(2);
const compareWith = args[0] === '--compare' ? args[1] : undefined;
const dir = compareWith === undefined ? args[0] : args[2];

const photos = new Map<string, Buffer>();
for (const name of Object.keys(SINGLE_FACES) as FaceName[])
  photos.set(`single ${name}`, await singleFace(name));
for (const name of Object.keys(MORE_FACES) as MoreFaceName[])
  photos.set(`more ${name}`, await moreFace(name));
for (const name of Object.keys(TURNED_FACES) as (keyof typeof TURNED_FACES)[])
  photos.set(`turned ${name}`, await turnedFace(name));
for (const n of [1, 2, 3, 4, 5, 6] as const) photos.set(`group ${n}`, groupPhoto(n));
// Small faces, for the detector's back model and tiles; and no face at all.
for (const n of [1, 4] as const)
  photos.set(`group ${n} at 480 px`, await sharp(groupPhoto(n)).resize(480).jpeg().toBuffer());
photos.set('landscape', await landscape());
for (const [label, photo] of Object.entries(await benchPhotos())) photos.set(`bench ${label}`, photo);
if (dir !== undefined) {
  for (const file of readdirSync(dir)
    .filter((f) => /\.jpe?g$/i.test(f))
    .sort())
    photos.set(file, readFileSync(join(dir, file)));
}

const analysis = await FaceAnalysis.load();
const answers: Record<string, Answer> = {};
for (const [label, photo] of photos) {
  for await (const event of analysis.analyze(photo)) if (event.kind !== 'progress') answers[label] = event;
}
await analysis.close();

if (compareWith === undefined) {
  console.log(JSON.stringify(answers, null, 1));
} else {
  const before = JSON.parse(readFileSync(compareWith, 'utf8')) as Record<string, Answer>;
  let identical = 0;
  let worstScore = 0;
  for (const [label, now] of Object.entries(answers)) {
    const then = before[label];
    if (JSON.stringify(then) === JSON.stringify(now)) {
      identical++;
      continue;
    }
    if (then?.kind !== now.kind || then.kind === 'failure' || now.kind === 'failure') {
      console.log(`${label}: was ${JSON.stringify(then)}, now ${JSON.stringify(now)}`);
      continue;
    }
    const largest = (a: Readonly<Record<string, number>>, z: Readonly<Record<string, number>>) =>
      Object.keys(a)
        .map((key) => [key, Math.abs(a[key]! - z[key]!)] as const)
        .sort((x, y) => y[1] - x[1])[0]!;
    const [rawKey, rawDiff] = largest(then.raw, now.raw);
    const [scoreKey, scoreDiff] = largest(then.scores, now.scores);
    worstScore = Math.max(worstScore, scoreDiff);
    console.log(
      `${label}: raw ${rawKey} ±${rawDiff.toPrecision(3)}, score ${scoreKey} ±${scoreDiff.toPrecision(3)}`,
    );
  }
  const total = Object.keys(answers).length;
  console.log(`${identical} of ${total} photos answered identically; largest score difference ${worstScore}`);
}
