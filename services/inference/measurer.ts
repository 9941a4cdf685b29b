/**
 * Runs the skin-measures graph (built by measures-graph/build.ts, committed as models/skin-measures.onnx)
 * on a batch of region patches: one row of raw features per region.
 */
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';
import {
  FEATURES,
  type FeatureName,
  INPUT_NAME,
  MEASURES_MODEL_VERSION,
  OUTPUT_NAME,
  PATCH_SIZE,
} from './measures-graph/features.ts';
import { fileVersion } from './model-version.ts';

const MODEL = fileURLToPath(new URL('models/skin-measures.onnx', import.meta.url));

export type Features = Readonly<Record<FeatureName, number>>;

/**
 * Graph optimisations short of the layout ones: at level 'all' onnxruntime turns every Conv into its
 * blocked-channel (NCHWc) form, which suits networks of many channels but pads each of this graph's
 * one-channel filters to a whole block and reorders tensors around them: the graph took about 1.4× the
 * time (docs/inference.md, Performance). The answers differ in float32 rounding only.
 */
export const MEASURES_SESSION_OPTIONS: ort.InferenceSession.SessionOptions = {
  intraOpNumThreads: 1,
  logSeverityLevel: 3,
  graphOptimizationLevel: 'extended',
};

export class Measurer {
  readonly #session: ort.InferenceSession;
  /** The graph's declared version and the hash of the file loaded. */
  readonly version = fileVersion(MODEL, MEASURES_MODEL_VERSION);

  private constructor(session: ort.InferenceSession) {
    this.#session = session;
  }

  static async load(): Promise<Measurer> {
    return new Measurer(await ort.InferenceSession.create(MODEL, MEASURES_SESSION_OPTIONS));
  }

  /** Frees the model; measuring fails from then on. */
  release(): Promise<void> {
    return this.#session.release();
  }

  /** Features of each patch of a batch laid out as float32 [n, 3, 64, 64]. */
  async measure(patches: Float32Array): Promise<Features[]> {
    const n = patches.length / (3 * PATCH_SIZE * PATCH_SIZE);
    const input = new ort.Tensor('float32', patches, [n, 3, PATCH_SIZE, PATCH_SIZE]);
    const out = (await this.#session.run({ [INPUT_NAME]: input }))[OUTPUT_NAME]!.data as Float32Array;
    return Array.from(
      { length: n },
      (_, r) =>
        Object.fromEntries(FEATURES.map((name, c) => [name, out[r * FEATURES.length + c]!])) as Features,
    );
  }
}
