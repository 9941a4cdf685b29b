/**
 * `node test/bench/inference-stages.ts`: where the face analysis spends its time, stage by stage, for the
 * bench:inference photos (12 MP and 1920 px) and, with more time, any JPEG files given as arguments. Each
 * stage is timed by process CPU time (user + system, every thread: libvips' and onnxruntime's too) as well
 * as wall-clock, so that a loaded machine skews the figures less; p50 over BENCH_ROUNDS rounds.
 */
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { clipLevels, colourGains, normaliseColour } from '../../services/inference/colour-constancy.ts';
import { decodeImage, type RgbImage } from '../../services/inference/decode.ts';
import type { Face } from '../../services/inference/face.ts';
import { FaceDetector } from '../../services/inference/face-detector.ts';
import { removeFrames } from '../../services/inference/frames.ts';
import { FaceLandmarker, type Landmarks } from '../../services/inference/landmarks.ts';
import { Measurer } from '../../services/inference/measurer.ts';
import { judgeQuality, mainFace } from '../../services/inference/quality.ts';
import { regionPatches } from '../../services/inference/regions.ts';
import {
  FEATURES_READ,
  MEASURED_TOGETHER,
  poreFloor,
  scoreFeatures,
} from '../../services/inference/scoring.ts';
import { toneWeights } from '../../services/inference/tone-weights.ts';
import { benchPhotos } from './bench-photos.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const photos = await benchPhotos();
for (const file of process.argv.slice(2)) photos[file] = readFileSync(file);

const detector = await FaceDetector.load();
const landmarker = await FaceLandmarker.load();
const measurer = await Measurer.load(FEATURES_READ, MEASURED_TOGETHER);

type Stage =
  | 'decode'
  | 'detect'
  | 'landmarks'
  | 'orientation'
  | 'quality'
  | 'regions'
  | 'frames'
  | 'colour'
  | 'measure'
  | 'score';
const STAGES: readonly Stage[] = [
  'decode',
  'detect',
  'landmarks',
  'orientation',
  'quality',
  'regions',
  'frames',
  'colour',
  'measure',
  'score',
];

async function analyse(photo: Buffer, cpu: Map<Stage, number[]>, wall: Map<Stage, number[]>) {
  const timed = async <T>(stage: Stage, work: () => T | Promise<T>): Promise<T> => {
    const c = process.cpuUsage();
    const t = performance.now();
    const result = await work();
    const used = process.cpuUsage(c);
    wall.get(stage)!.push(performance.now() - t);
    cpu.get(stage)!.push((used.user + used.system) / 1000);
    return result;
  };
  const image: RgbImage = await timed('decode', () => decodeImage(photo));
  const faces: Face[] = await timed('detect', () => detector.detect(image));
  const main = mainFace(faces)!;
  const landmarks: Landmarks = await timed('landmarks', () => landmarker.locate(image, main));
  const upsideDown = await timed('orientation', () => detector.upsideDown(image, main));
  await timed('quality', () => judgeQuality(image, { detections: faces, landmarks, upsideDown }));
  const patches = await timed('regions', () => regionPatches(image, landmarks));
  await timed('frames', () => removeFrames(patches, landmarks));
  const { normalised, gains } = await timed('colour', () => {
    const { gains, underEye } = colourGains(patches);
    return { normalised: normaliseColour(patches, patches, gains, underEye), gains };
  });
  const features = await timed('measure', () =>
    measurer.measure(normalised, poreFloor, clipLevels(gains), toneWeights(landmarks)),
  );
  return timed('score', () => scoreFeatures(features, gains));
}

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(0.5 * (xs.length - 1))]!;
for (const [label, photo] of Object.entries(photos)) {
  const cpu = new Map(STAGES.map((s) => [s, [] as number[]]));
  const wall = new Map(STAGES.map((s) => [s, [] as number[]]));
  for (let i = 0; i < 3; i++) await analyse(photo, new Map(cpu), new Map(wall));
  for (const s of STAGES) {
    cpu.get(s)!.length = 0;
    wall.get(s)!.length = 0;
  }
  for (let i = 0; i < ROUNDS; i++) await analyse(photo, cpu, wall);
  const { width, height } = await sharp(photo).metadata();
  console.log(`\n${label}: ${width}×${height}, ${(photo.length / 1024).toFixed(0)} KiB, ${ROUNDS} rounds`);
  console.log('  stage       CPU p50   wall p50');
  let cpuTotal = 0;
  let wallTotal = 0;
  for (const s of STAGES) {
    cpuTotal += p50(cpu.get(s)!);
    wallTotal += p50(wall.get(s)!);
    console.log(
      `  ${s.padEnd(10)} ${p50(cpu.get(s)!).toFixed(1).padStart(6)} ms ${p50(wall.get(s)!).toFixed(1).padStart(7)} ms`,
    );
  }
  console.log(
    `  ${'sum'.padEnd(10)} ${cpuTotal.toFixed(1).padStart(6)} ms ${wallTotal.toFixed(1).padStart(7)} ms`,
  );
}
await Promise.all([detector.release(), landmarker.release(), measurer.release()]);
