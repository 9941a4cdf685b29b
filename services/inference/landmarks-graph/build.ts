/**
 * Builds the 68-point face-landmark ONNX model from the weights that ship with @vladmandic/face-api
 * (MIT; face_landmark_68_model, the FaceLandmark68Net of face-api.js): a 112×112 face crop in, 68 (x, y)
 * points out as fractions of the crop. The network is rebuilt op for op with the project's graph builder
 * (docs/landmarks.md); the model is committed, and a test fails while the committed bytes and this
 * builder disagree.
 *
 *   node services/inference/landmarks-graph/build.ts
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { create, toBinary } from '@bufbuild/protobuf';
import { ModelProtoSchema, OperatorSetIdProtoSchema, StringStringEntryProtoSchema } from 'onnx-buf';
import { GraphBuilder } from '../measures-graph/graph-builder.ts';
import { readTfjsWeights, type WeightTensor } from './tfjs-weights.ts';

export const LANDMARKS_MODEL_PATH = fileURLToPath(
  new URL('../models/face-landmarks-68.onnx', import.meta.url),
);
export const LANDMARKS_MODEL_VERSION = 'face-landmarks-68-1.1.0 (weights: @vladmandic/face-api 1.7.15, MIT)';
export const LANDMARKS_INPUT = 'faces';
export const LANDMARKS_OUTPUT = 'landmarks';
/** Side of the square crop the network reads. */
export const LANDMARKS_INPUT_SIZE = 112;
export const LANDMARK_COUNT = 68;

/** face-api's mean colour, subtracted from 0..255 RGB before dividing by 255. */
const MEAN_RGB = [122.782, 117.001, 104.298];
const BLOCKS = ['dense0', 'dense1', 'dense2', 'dense3'] as const;

export function landmarkWeightsManifest(): string {
  const require = createRequire(import.meta.url);
  const root = dirname(require.resolve('@vladmandic/face-api/package.json'));
  return join(root, 'model', 'face_landmark_68_model-weights_manifest.json');
}

/** The serialised model. Deterministic: the same weights always give the same bytes. */
export function buildLandmarksModel(manifest = landmarkWeightsManifest()): Uint8Array {
  const weights = readTfjsWeights(manifest);
  const w = (name: string): WeightTensor => {
    const tensor = weights.get(name);
    if (!tensor) throw new Error(`weights manifest has no ${name}`);
    return tensor;
  };
  const g = new GraphBuilder();
  const centred = g.node(
    'Sub',
    [LANDMARKS_INPUT, g.constant('mean_rgb', [1, 3, 1, 1], MEAN_RGB)],
    ['centred'],
  );
  let x = g.node('Div', [centred, g.scalar('rgb_scale', 255)], ['normalised']);
  for (const block of BLOCKS) x = addDenseBlock(g, x, block, w, block === 'dense0');
  const pooled = g.node('AveragePool', [x], ['pooled'], { kernel_shape: [7, 7], strides: [2, 2] });
  const flat = g.node('Flatten', [pooled], ['bottleneck'], { axis: 1 });
  const fcWeights = w('fc/weights');
  const product = g.node(
    'MatMul',
    [flat, g.constant('fc_weights', fcWeights.shape, [...fcWeights.values])],
    ['fc_product'],
  );
  g.node(
    'Add',
    [product, g.constant('fc_bias', [LANDMARK_COUNT * 2], [...w('fc/bias').values])],
    [LANDMARKS_OUTPUT],
  );

  const graph = g.toGraph(
    'face_landmarks_68',
    { [LANDMARKS_INPUT]: ['n', 3, LANDMARKS_INPUT_SIZE, LANDMARKS_INPUT_SIZE] },
    { [LANDMARKS_OUTPUT]: ['n', LANDMARK_COUNT * 2] },
  );
  graph.docString =
    'Face crop, RGB 0..255 NCHW, in; 68 landmarks out as x0, y0, x1, y1, … in fractions of the crop.';
  const model = create(ModelProtoSchema, {
    irVersion: 8n,
    opsetImport: [create(OperatorSetIdProtoSchema, { domain: '', version: 17n })],
    producerName: 'skinmatch landmarks-graph',
    producerVersion: '1',
    docString: LANDMARKS_MODEL_VERSION,
    graph,
    metadataProps: [
      create(StringStringEntryProtoSchema, { key: 'version', value: LANDMARKS_MODEL_VERSION }),
      create(StringStringEntryProtoSchema, {
        key: 'licence',
        value: 'MIT (face-api.js, @vladmandic/face-api)',
      }),
    ],
  });
  return toBinary(ModelProtoSchema, model);
}

/**
 * face-api's denseBlock4: a strided first convolution, then three depthwise-separable convolutions, each
 * reading the ReLU of the sum of all outputs before it.
 */
function addDenseBlock(
  g: GraphBuilder,
  input: string,
  block: string,
  w: (name: string) => WeightTensor,
  first: boolean,
): string {
  const out1 = g.node(
    'Relu',
    [first ? addConv(g, input, block, w) : addSeparable(g, input, `${block}/conv0`, w, 2)],
    [`${block}_out1`],
  );
  // Each sum is the sum before it plus the newest output: the left-to-right additions a Sum of all the
  // outputs makes, done once each rather than again for every later sum (a third of the network's time
  // went to them). onnxruntime fuses each Add into the convolution before it, which rounds differently
  // in float32: landmarks moved by at most 3e-5 of a pixel, no score (face-landmarks-68-1.1.0).
  let total = out1;
  let next = out1;
  for (const k of [1, 2, 3]) {
    const out = addSeparable(g, next, `${block}/conv${k}`, w, 1);
    total = g.node('Add', [total, out], [k === 3 ? `${block}_sum` : `${block}_in${k + 2}_sum`]);
    if (k < 3) next = g.node('Relu', [total], [`${block}_in${k + 2}`]);
  }
  return g.node('Relu', [total], [`${block}_out`]);
}

/** TensorFlow's 'same' padding: for a stride of 2 on an even size the extra row and column go at the end. */
function samePads(stride: number): number[] {
  return stride === 1 ? [1, 1, 1, 1] : [0, 0, 1, 1];
}

/** The first block's full 3×3 convolution, stride 2; HWIO filters become ONNX's OIHW. */
function addConv(g: GraphBuilder, input: string, block: string, w: (name: string) => WeightTensor): string {
  const filters = w(`${block}/conv0/filters`);
  const [kh, kw, cin, cout] = filters.shape as [number, number, number, number];
  const oihw = new Array<number>(filters.values.length);
  for (let h = 0; h < kh; h++)
    for (let x = 0; x < kw; x++)
      for (let i = 0; i < cin; i++)
        for (let o = 0; o < cout; o++)
          oihw[((o * cin + i) * kh + h) * kw + x] = filters.values[((h * kw + x) * cin + i) * cout + o]!;
  const name = `${block}_conv0`;
  return g.node(
    'Conv',
    [input, g.constant(`${name}_w`, [cout, cin, kh, kw], oihw), biasOf(g, `${block}/conv0`, w)],
    [name],
    { kernel_shape: [kh, kw], strides: [2, 2], pads: samePads(2) },
  );
}

/** TensorFlow's separableConv2d plus bias: a depthwise 3×3 (group = channels), then a pointwise 1×1. */
function addSeparable(
  g: GraphBuilder,
  input: string,
  prefix: string,
  w: (name: string) => WeightTensor,
  stride: number,
): string {
  const name = prefix.replace('/', '_');
  const depthwise = w(`${prefix}/depthwise_filter`);
  const [kh, kw, channels] = depthwise.shape as [number, number, number, number];
  const dw = new Array<number>(depthwise.values.length);
  for (let h = 0; h < kh; h++)
    for (let x = 0; x < kw; x++)
      for (let c = 0; c < channels; c++)
        dw[(c * kh + h) * kw + x] = depthwise.values[(h * kw + x) * channels + c]!;
  const spatial = g.node(
    'Conv',
    [input, g.constant(`${name}_dw`, [channels, 1, kh, kw], dw)],
    [`${name}_depthwise`],
    {
      group: channels,
      kernel_shape: [kh, kw],
      strides: [stride, stride],
      pads: samePads(stride),
    },
  );
  const pointwise = w(`${prefix}/pointwise_filter`);
  const cout = pointwise.shape[3]!;
  const pw = new Array<number>(pointwise.values.length);
  for (let c = 0; c < channels; c++)
    for (let o = 0; o < cout; o++) pw[o * channels + c] = pointwise.values[c * cout + o]!;
  return g.node(
    'Conv',
    [spatial, g.constant(`${name}_pw`, [cout, channels, 1, 1], pw), biasOf(g, prefix, w)],
    [name],
    {
      kernel_shape: [1, 1],
    },
  );
}

function biasOf(g: GraphBuilder, prefix: string, w: (name: string) => WeightTensor): string {
  const bias = w(`${prefix}/bias`);
  return g.constant(`${prefix.replace('/', '_')}_b`, bias.shape, [...bias.values]);
}

if (import.meta.main) {
  writeFileSync(LANDMARKS_MODEL_PATH, buildLandmarksModel());
  console.log(`wrote ${LANDMARKS_MODEL_PATH} (${LANDMARKS_MODEL_VERSION})`);
}
