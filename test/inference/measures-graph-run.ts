/**
 * Running the skin-measures model on synthetic patches for its tests, and checking a row against the plain
 * reference implementation (measures-graph-reference.ts).
 */
import assert from 'node:assert/strict';
import { type InferenceSession, Tensor } from 'onnxruntime-node';
import {
  CLIP_LEVELS_NAME,
  FEATURES,
  type FeatureName,
  INPUT_NAME,
  OUTPUT_NAME,
  PATCH_SIZE,
  PORE_FLOOR_NAME,
  TONE_WEIGHTS_NAME,
} from '../../services/inference/measures-graph/features.ts';
import { AREA } from './measures-graph-patches.ts';
import { type Patch, referenceFeatures } from './measures-graph-reference.ts';

export type Row = Record<FeatureName, number>;

export const NOT_CLIPPED = [Infinity, Infinity, Infinity];

/** The model's four inputs for `count` patches packed in `input` (float32 [count, 3, 64, 64]). */
export function graphFeeds(
  input: Float32Array,
  count: number,
  poreFloor: number,
  clipLevels: readonly number[],
  toneWeights: Float32Array,
): Record<string, Tensor> {
  return {
    [INPUT_NAME]: new Tensor('float32', input, [count, 3, PATCH_SIZE, PATCH_SIZE]),
    [PORE_FLOOR_NAME]: new Tensor('float32', Float32Array.of(poreFloor), []),
    [CLIP_LEVELS_NAME]: new Tensor('float32', Float32Array.from(clipLevels), [3]),
    [TONE_WEIGHTS_NAME]: new Tensor('float32', toneWeights, [count, 1, PATCH_SIZE, PATCH_SIZE]),
  };
}

export async function measure(
  session: InferenceSession,
  patches: readonly Patch[],
  poreFloor = 0,
  clipLevels: readonly number[] = NOT_CLIPPED,
  toneWeights = new Float32Array(patches.length * AREA).fill(1),
): Promise<Row[]> {
  const input = new Float32Array(patches.length * 3 * AREA);
  for (const [i, patch] of patches.entries()) input.set(patch, i * 3 * AREA);
  const feeds = graphFeeds(input, patches.length, poreFloor, clipLevels, toneWeights);
  const output = (await session.run(feeds))[OUTPUT_NAME]!;
  assert.deepEqual(output.dims, [patches.length, FEATURES.length]);
  const values = output.data as Float32Array;
  return patches.map((_, i) =>
    Object.fromEntries(FEATURES.map((name, column) => [name, values[i * FEATURES.length + column]!])),
  ) as Row[];
}

/** Float32 graph against float64 reference: 1e-3 relative or 1e-2 absolute, whichever is looser. */
export function assertMatchesReference(
  row: Row,
  patch: Patch,
  poreFloor = 0,
  clipLevels: readonly number[] = NOT_CLIPPED,
  toneWeights?: Float32Array,
): void {
  const expected = referenceFeatures(patch, poreFloor, clipLevels, toneWeights);
  for (const name of FEATURES) {
    const error = Math.abs(row[name] - expected[name]!);
    assert.ok(
      error <= 1e-2 || error <= 1e-3 * Math.abs(expected[name]!),
      `${name}: model ${row[name]}, reference ${expected[name]}`,
    );
  }
}
