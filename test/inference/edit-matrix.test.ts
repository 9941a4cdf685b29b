/**
 * The controlled-edit matrix: every measure × its edit × three strengths × five real faces. For each
 * edit the measure it aims at must fall monotonically as the edit grows — a faint edit a little, a strong
 * one a lot — and every other measure must move by at most 5 points, except the cross-talk listed in
 * KNOWN_CROSS_TALK (docs/inference.md states each, with the bound the test holds it to). The analyses of a
 * measure run once, in its `before`; the photos are decoded once per face.
 */
import assert from 'node:assert/strict';
import { FaceAnalysis } from '../../services/inference/face-analysis.ts';
import { FaceDetector } from '../../services/inference/face-detector.ts';
import { FaceLandmarker } from '../../services/inference/landmarks.ts';
import { MEASURES, type Measure } from '../../services/shared/measures.ts';
import { type Scores, scoresOf } from './support/analysed.ts';
import { edit, type FaceGeometry, faceGeometry, type Strength } from './support/edits.ts';
import { moreFace, singleFace } from './support/photos.ts';

/** Five faces: two of the full-size package crops and three of the enlarged ones. */
const FACES: [string, () => Promise<Buffer>][] = [
  ['b', () => singleFace('b')],
  ['c', () => singleFace('c')],
  ['g', () => moreFace('g')],
  ['j', () => moreFace('j')],
  ['k', () => moreFace('k')],
];
const STRENGTHS: Strength[] = [1, 2, 3];

/**
 * Measures an edit moves by more than 5 points although it is not aimed at them, with the largest move
 * the test accepts. Each is a known limit, not a design: see docs/inference.md. None is left
 * (`skin-measures-24.0.0`); the list stays so that a limit found later is stated where it is tested.
 */
const KNOWN_CROSS_TALK: Partial<Record<Measure, Partial<Record<Measure, number>>>> = {};

describe('controlled edits: every measure alive and selective on five faces', function () {
  this.timeout(300_000);
  let analysis: FaceAnalysis;
  const faces: { name: string; photo: Buffer; geometry: FaceGeometry; base: Scores }[] = [];

  before(async () => {
    analysis = await FaceAnalysis.load();
    const detector = await FaceDetector.load();
    const landmarker = await FaceLandmarker.load();
    for (const [name, load] of FACES) {
      const photo = await load();
      faces.push({
        name,
        photo,
        geometry: await faceGeometry(photo, detector, landmarker),
        base: await scoresOf(analysis, photo),
      });
    }
  });

  for (const measure of MEASURES) {
    describe(`${measure} edit`, () => {
      const edited = new Map<string, Scores[]>();
      before(async () => {
        for (const face of faces) {
          const rows: Scores[] = [];
          for (const s of STRENGTHS)
            rows.push(await scoresOf(analysis, await edit(face.photo, face.geometry, measure, s)));
          edited.set(face.name, rows);
        }
      });

      for (const [name] of FACES) {
        it(`face ${name}: ${measure} falls monotonically from faint to strong, not all or nothing`, () => {
          const face = faces.find((f) => f.name === name)!;
          const series = [face.base[measure], ...edited.get(name)!.map((row) => row[measure])];
          const label = `${measure} ${series.join(' → ')}`;
          for (let i = 1; i < series.length; i++) {
            assert.ok(series[i]! <= series[i - 1]! + 1, `not monotonic: ${label}`);
          }
          const faint = series[0]! - series[1]!;
          const strong = series[0]! - series[3]!;
          assert.ok(strong >= 10, `the strong edit moves it little: ${label}`);
          assert.ok(faint < strong && faint <= 0.8 * strong, `all or nothing: ${label}`);
        });

        it(`face ${name}: the ${measure} edit moves every other measure by at most 5 points`, () => {
          const face = faces.find((f) => f.name === name)!;
          for (const [i, row] of edited.get(name)!.entries()) {
            for (const other of MEASURES.filter((m) => m !== measure)) {
              const bound = KNOWN_CROSS_TALK[measure]?.[other] ?? 5;
              const moved = Math.abs(row[other] - face.base[other]);
              assert.ok(
                moved <= bound,
                `strength ${i + 1}: ${other} ${face.base[other]} → ${row[other]} (bound ${bound})`,
              );
            }
          }
        });
      }
    });
  }
});
