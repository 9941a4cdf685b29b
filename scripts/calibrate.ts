/**
 * `npm run calibrate` measures the calibration set and writes the committed table of per-photo raw
 * measures (services/inference/calibration/raw-measures.csv, no images), the calibration derived from it
 * (calibration.json) and the figures in docs/calibration-figures.md. The set is the reference faces in the
 * directory given (`npm run calibrate -- DIR`; default ../shared/faces beside the repository: 61 photos of
 * 13 adults, see their README; development only, never committed) when present, plus the single-face
 * crops of the photos that ship with @vladmandic/face-api. Prints a line per photo as it goes.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CALIBRATION_PATH, TABLE_PATH } from '../services/inference/calibration/calibration.ts';
import {
  deriveCalibration,
  formatTable,
  parseTable,
  type TableRow,
} from '../services/inference/calibration/derive.ts';
import { calibrationFigures } from '../services/inference/calibration/figures.ts';
import { FaceAnalysis, type FaceAnalysisEvent } from '../services/inference/face-analysis.ts';
import { type FaceName, SINGLE_FACES, singleFace } from '../test/inference/support/photos.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const facesDir = resolve(process.argv[2] ?? join(root, '..', 'shared', 'faces'));
const FIGURES_PATH = join(root, 'docs', 'calibration-figures.md');

/** Person of each photo, from the README's identity table (`| A | img1 img2 … |`). */
function identities(dir: string): Map<string, string> {
  const people = new Map<string, string>();
  for (const line of readFileSync(join(dir, 'README.md'), 'utf8').split('\n')) {
    const match = /^\|\s*([A-Z])\s*\|\s*((?:img\d+\s*)+)\|/.exec(line);
    if (match) for (const photo of match[2]!.trim().split(/\s+/)) people.set(photo, match[1]!);
  }
  return people;
}

const photos: { photo: string; source: string; person: string; load: () => Promise<Buffer> }[] = [];
if (existsSync(join(facesDir, 'README.md'))) {
  const people = identities(facesDir);
  const files = readdirSync(facesDir)
    .filter((f) => /\.(jpe?g|png)$/i.test(f))
    .sort((a, b) => Number(/\d+/.exec(a)?.[0]) - Number(/\d+/.exec(b)?.[0]));
  for (const file of files) {
    const photo = file.replace(/\.\w+$/, '');
    photos.push({
      photo,
      source: 'deepface-dataset',
      person: people.get(photo) ?? '',
      load: async () => readFileSync(join(facesDir, file)),
    });
  }
} else {
  console.warn(`no reference faces at ${facesDir}: measuring the package crops only`);
}
for (const name of Object.keys(SINGLE_FACES) as FaceName[]) {
  photos.push({
    photo: `crop-${name}`,
    source: 'face-api-demo',
    person: `crop-${name}`,
    load: () => singleFace(name),
  });
}

const analysis = await FaceAnalysis.load();
const last = async (events: AsyncGenerator<FaceAnalysisEvent>) => {
  let final: FaceAnalysisEvent | undefined;
  for await (const event of events) final = event;
  return final!;
};
const rows: TableRow[] = [];
for (const [i, entry] of photos.entries()) {
  const bytes = await entry.load();
  const judged = await last(analysis.analyze(bytes));
  const measured =
    judged.kind === 'result' ? judged : await last(analysis.analyze(bytes, { skipQualityGates: true }));
  const outcome = judged.kind === 'result' ? 'ok' : judged.kind === 'failure' ? judged.reason : 'error';
  rows.push({ ...entry, outcome, raw: measured.kind === 'result' ? measured.raw : undefined });
  console.log(`${i + 1}/${photos.length} ${entry.photo}: ${outcome}`);
}

// Derived from the table as written (six significant digits), so that it can be re-derived from the file.
const table = formatTable(rows);
writeFileSync(TABLE_PATH, table);
const written = parseTable(table);
const calibration = deriveCalibration(written);
writeFileSync(CALIBRATION_PATH, `${JSON.stringify(calibration, null, 2)}\n`);
writeFileSync(FIGURES_PATH, calibrationFigures(written, calibration));
console.log(`wrote ${TABLE_PATH}, ${CALIBRATION_PATH} and ${FIGURES_PATH}`);
