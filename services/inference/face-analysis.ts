/**
 * The whole analysis of one photo, as a stream: decode, find the face, check the photo can be measured,
 * measure the regions, score. Progress is reported as each stage starts; the stream ends with exactly one
 * result or one failure the person can act on.
 */
import { setTimeout } from 'node:timers/promises';
import type { FailureReason } from '../shared/failure-messages.ts';
import type { Measure } from '../shared/measures.ts';
import { BufferPool } from './buffer-pool.ts';
import { clipLevels, colourGains, normaliseColour } from './colour-constancy.ts';
import { decodeImage, ImageError, releaseImage } from './decode.ts';
import { FaceDetector } from './face-detector.ts';
import { removeFrames } from './frames.ts';
import { FaceLandmarker } from './landmarks.ts';
import { Measurer } from './measurer.ts';
import { PATCH_SIZE } from './measures-graph/features.ts';
import { judgeQuality, mainFace, type Quality } from './quality.ts';
import { PATCHES_LENGTH, REGIONS, regionPatches } from './regions.ts';
import {
  CALIBRATION_VERSION,
  FEATURES_READ,
  MEASURED_TOGETHER,
  poreFloor,
  scoreFeatures,
} from './scoring.ts';
import { toneWeights } from './tone-weights.ts';

export const STAGES = ['decoding', 'detecting_face', 'checking_quality', 'measuring', 'scoring'] as const;
export type StageName = (typeof STAGES)[number];
const PERCENT: Record<StageName, number> = {
  decoding: 5,
  detecting_face: 25,
  checking_quality: 50,
  measuring: 65,
  scoring: 90,
};

export type FaceAnalysisEvent =
  | { readonly kind: 'progress'; readonly stage: StageName; readonly percent: number }
  | {
      readonly kind: 'result';
      readonly scores: Readonly<Record<Measure, number>>;
      readonly raw: Readonly<Record<Measure, number>>;
      readonly concerns: readonly Measure[];
      readonly quality: Quality;
    }
  | { readonly kind: 'failure'; readonly reason: FailureReason; readonly quality?: Quality };

export interface AnalyzeOptions {
  /** Measure even a photo that fails a quality gate (calibration work only). */
  readonly skipQualityGates?: boolean;
  /**
   * The caller went away (its client cancelled, its stream was reset): the analysis stops at the next
   * stage, or at once during a stage's delay, and throws the signal's reason.
   */
  readonly signal?: AbortSignal;
}

/** Slows every stage by this much (INFERENCE_STAGE_DELAY_MS): for demos and fault-injection tests. */
export interface AnalysisSettings {
  readonly stageDelayMs?: number;
}

export class FaceAnalysis {
  readonly #detector: FaceDetector;
  readonly #landmarker: FaceLandmarker;
  readonly #measurer: Measurer;
  readonly #stageDelayMs: number;
  /** The region patches of a photo, from sampling to the end of measuring. */
  readonly #patches = new BufferPool(PATCHES_LENGTH);
  /** How much each pixel of the patches counts in uneven tone (tone-weights.ts). */
  readonly #toneWeights = new BufferPool(REGIONS.length * PATCH_SIZE * PATCH_SIZE);
  #closed = false;

  private constructor(
    detector: FaceDetector,
    landmarker: FaceLandmarker,
    measurer: Measurer,
    settings: AnalysisSettings,
  ) {
    this.#detector = detector;
    this.#landmarker = landmarker;
    this.#measurer = measurer;
    this.#stageDelayMs = settings.stageDelayMs ?? 0;
  }

  /** Every model the results depend on, by role. */
  get versions(): Readonly<Record<string, string>> {
    return {
      face_detector: this.#detector.version,
      face_landmarks: this.#landmarker.version,
      skin_measures: this.#measurer.version,
      calibration: CALIBRATION_VERSION,
    };
  }

  static async load(settings: AnalysisSettings = {}): Promise<FaceAnalysis> {
    return new FaceAnalysis(
      await FaceDetector.load(),
      await FaceLandmarker.load(),
      await Measurer.load(FEATURES_READ, MEASURED_TOGETHER),
      settings,
    );
  }

  /**
   * Whether the models answer: a blank image through the face detector and a blank patch through the
   * measures graph (a few milliseconds; longer behind busy analyses). Health runs it in the background
   * (liveness.ts), so SERVING means models that answered, without a Check waiting for them.
   */
  async selfCheck(): Promise<boolean> {
    try {
      const side = 64;
      const blank = { data: new Uint8Array(side * side * 3).fill(128), width: side, height: side };
      const faces = await this.#detector.detect(blank);
      const blankPatches = new Float32Array(REGIONS.length * 3 * PATCH_SIZE * PATCH_SIZE).fill(0.5);
      const { raw } = scoreFeatures(await this.#measurer.measure(blankPatches, poreFloor));
      return Array.isArray(faces) && Object.values(raw).every(Number.isFinite);
    } catch {
      return false;
    }
  }

  /** False once the models are freed (close). */
  get loaded(): boolean {
    return !this.#closed;
  }

  /** Frees every model; analyses and the self-check fail from then on. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([this.#detector.release(), this.#landmarker.release(), this.#measurer.release()]);
  }

  async *analyze(photo: Uint8Array, options: AnalyzeOptions = {}): AsyncGenerator<FaceAnalysisEvent> {
    const delay = this.#stageDelayMs;
    const { signal } = options;
    const progress = async (stage: StageName) => {
      signal?.throwIfAborted();
      if (delay > 0) await setTimeout(delay, undefined, { signal }).catch(() => signal?.throwIfAborted());
      return { kind: 'progress', stage, percent: PERCENT[stage] } as const;
    };
    yield await progress('decoding');
    let image: Awaited<ReturnType<typeof decodeImage>>;
    try {
      image = await decodeImage(photo);
    } catch (err) {
      if (err instanceof ImageError) {
        yield { kind: 'failure', reason: err.reason };
        return;
      }
      throw err;
    }
    try {
      yield await progress('detecting_face');
      const faces = await this.#detector.detect(image);
      const main = mainFace(faces);
      const landmarks = main && (await this.#landmarker.locate(image, main));
      const upsideDown = main && (await this.#detector.upsideDown(image, main));
      yield await progress('checking_quality');
      const verdict = judgeQuality(image, { detections: faces, landmarks, upsideDown });
      if (!verdict.face || !landmarks || (verdict.failure && !options.skipQualityGates)) {
        yield { kind: 'failure', reason: verdict.failure ?? 'no_face', quality: verdict.quality };
        return;
      }
      yield await progress('measuring');
      const { features, gains } = await this.#patches.lend((buffer) =>
        this.#toneWeights.lend(async (weights) => {
          const patches = regionPatches(image, landmarks, buffer);
          removeFrames(patches, landmarks);
          const { gains, underEye } = colourGains(patches);
          const corrected = normaliseColour(patches, patches, gains, underEye);
          const levels = clipLevels(gains);
          const tone = toneWeights(landmarks, weights);
          return { features: await this.#measurer.measure(corrected, poreFloor, levels, tone), gains };
        }),
      );
      yield await progress('scoring');
      const { scores, raw, concerns } = scoreFeatures(features, gains);
      yield { kind: 'result', scores, raw, concerns, quality: verdict.quality };
    } finally {
      // Nothing reads the pixels any more (measuring and scoring read the patches).
      releaseImage(image);
    }
  }
}
