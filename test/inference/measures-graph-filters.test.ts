/**
 * How the skin-measures graph computes its filters, where onnxruntime's cost depends on the form and the
 * values must not (docs/inference.md, "the measures graph's filters in cheaper forms"): Gaussians as
 * MatMuls by banded matrices, square MaxPools in one node, and L* companding Y alone.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fromBinary } from '@bufbuild/protobuf';
import { type ModelProto, ModelProtoSchema, type NodeProto } from 'onnx-buf';
import { MEASURES_MODEL_PATH } from '../../services/inference/measures-graph/build.ts';
import { PATCH_SIZE } from '../../services/inference/measures-graph/features.ts';

const model: ModelProto = fromBinary(ModelProtoSchema, readFileSync(MEASURES_MODEL_PATH));
const graph = model.graph!;
const ints = (node: NodeProto, name: string) =>
  node.attribute.find((a) => a.name === name)?.ints.map(Number) ?? [];

/** The nodes the given outputs are computed from, as measurer.ts cuts the graph down. */
function nodesFor(outputs: readonly string[]): NodeProto[] {
  const needed = new Set(outputs);
  return [...graph.node].reverse().filter((node) => {
    if (!node.output.some((tensor) => needed.has(tensor))) return false;
    for (const tensor of node.input) needed.add(tensor);
    return true;
  });
}

describe('skin-measures graph: filters in the forms onnxruntime runs fastest', () => {
  it('blurs with one banded matrix per σ, each row the zero-padded Gaussian of radius ⌈3σ⌉, by MatMuls', () => {
    // Tone's least-squares surface is a MatMul too (tone_…); every other one is a blur's pass.
    const matMuls = graph.node.filter((node) => node.opType === 'MatMul' && !node.name.startsWith('tone_'));
    const bands = graph.initializer.filter((tensor) => tensor.name.startsWith('gauss_band_'));
    assert.deepEqual(bands.map((tensor) => tensor.name).sort(), [
      'gauss_band_1_5',
      'gauss_band_2',
      'gauss_band_3',
      'gauss_band_4',
      'gauss_band_6_5',
    ]);
    // Two passes a blur, each reading one of the matrices: rows (input × matrix), then columns (matrix × input).
    assert.equal(matMuls.length, 2 * 10);
    for (const node of matMuls) {
      const across = node.name.endsWith('_blurred_across');
      assert.ok(across || node.name.endsWith('_blurred'), node.name);
      const matrix = across ? node.input[1]! : node.input[0]!;
      assert.ok(matrix.startsWith('gauss_band_'), `${node.name} reads ${matrix}`);
    }
    for (const tensor of bands) {
      assert.deepEqual(tensor.dims.map(Number), [PATCH_SIZE, PATCH_SIZE]);
      const sigma = Number(tensor.name.slice('gauss_band_'.length).replace('_', '.'));
      const radius = Math.ceil(3 * sigma);
      const taps = Array.from({ length: 2 * radius + 1 }, (_, i) =>
        Math.exp(-((i - radius) ** 2) / (2 * sigma ** 2)),
      );
      const total = taps.reduce((sum, t) => sum + t, 0);
      for (let i = 0; i < PATCH_SIZE; i++) {
        for (let j = 0; j < PATCH_SIZE; j++) {
          const expected = Math.abs(j - i) <= radius ? Math.fround(taps[j - i + radius]! / total) : 0;
          assert.equal(tensor.floatData[i * PATCH_SIZE + j], expected, `${tensor.name} [${i}, ${j}]`);
        }
      }
    }
  });

  it('takes every square maximum in one MaxPool, not a row pass and a column pass', () => {
    const pools = graph.node.filter((node) => node.opType === 'MaxPool');
    assert.ok(pools.length > 20, `${pools.length} MaxPools`);
    for (const node of pools) {
      const [height, width] = ints(node, 'kernel_shape');
      assert.equal(height, width, `${node.name}: ${height}×${width}`);
    }
  });

  it('companding only Y for L*, and X too for a*: a cut graph computes the logarithms it reads', () => {
    const logs = (outputs: readonly string[]) =>
      nodesFor(outputs)
        .filter((node) => node.opType === 'Log')
        .map((node) => node.name)
        .sort();
    assert.deepEqual(logs(['l_median']), ['lab_f_y_log', 'srgb_scaled_log']);
    assert.deepEqual(logs(['red_spot_frac']), ['lab_f_x_log', 'lab_f_y_log', 'srgb_scaled_log']);
    assert.deepEqual(logs(['b_mean']), ['lab_f_y_log', 'lab_f_z_log', 'srgb_scaled_log']);
  });
});
