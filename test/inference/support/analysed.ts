/**
 * The face analysis as the edit tests use it: a photo's last event, its scores, and for a describe the
 * analysis with the detector and landmarker the edits are laid out with (loaded before, released after).
 */
import { FaceAnalysis, type FaceAnalysisEvent } from '../../../services/inference/face-analysis.ts';
import { FaceDetector } from '../../../services/inference/face-detector.ts';
import { FaceLandmarker } from '../../../services/inference/landmarks.ts';
import type { Measure } from '../../../services/shared/measures.ts';
import { type FaceGeometry, faceGeometry } from './edits.ts';

export type Scores = Record<Measure, number>;
type Result = Extract<FaceAnalysisEvent, { kind: 'result' }>;

/** The analysis's last event for `photo`: its result or its failure. */
export async function outcome(analysis: FaceAnalysis, photo: Buffer): Promise<FaceAnalysisEvent> {
  let last: FaceAnalysisEvent | undefined;
  for await (const event of analysis.analyze(photo)) last = event;
  return last!;
}

/** The analysis's result for `photo`; throws when the photo is refused. */
export async function resultOf(analysis: FaceAnalysis, photo: Buffer): Promise<Result> {
  const last = await outcome(analysis, photo);
  if (last?.kind !== 'result') throw new Error(`expected a result, got ${JSON.stringify(last)}`);
  return last;
}

export const scoresOf = async (analysis: FaceAnalysis, photo: Buffer): Promise<Scores> =>
  (await resultOf(analysis, photo)).scores as Scores;

/** For a describe: the analysis, and the geometry of a face to lay edits out on. */
export function analysisSuite() {
  let detector: FaceDetector | undefined;
  let landmarker: FaceLandmarker | undefined;
  const suite = {
    analysis: undefined as unknown as FaceAnalysis,
    scores: (photo: Buffer) => scoresOf(suite.analysis, photo),
    geometry: (photo: Buffer): Promise<FaceGeometry> => faceGeometry(photo, detector!, landmarker!),
  };
  before(async () => {
    suite.analysis = await FaceAnalysis.load();
    detector = await FaceDetector.load();
    landmarker = await FaceLandmarker.load();
  });
  after(async () => {
    await Promise.all([suite.analysis?.close(), detector?.release(), landmarker?.release()]);
  });
  return suite;
}
