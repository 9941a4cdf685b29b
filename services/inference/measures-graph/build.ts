/**
 * Builds the skin-measures ONNX model: face-region patches in, raw skin features out (see
 * docs/measures-graph.md). The model is committed; run this file as a script to rewrite it after a
 * change, and the tests fail while the committed bytes and the builder disagree.
 *
 *   node services/inference/measures-graph/build.ts
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { create, toBinary } from '@bufbuild/protobuf';
import { ModelProtoSchema, OperatorSetIdProtoSchema, StringStringEntryProtoSchema } from 'onnx-buf';
import { addCielab } from './cielab.ts';
import { addColourFeatures } from './colour-measures.ts';
import {
  CLIP_LEVELS_NAME,
  FEATURES,
  type FeatureName,
  INPUT_NAME,
  MEASURES_MODEL_VERSION,
  OUTPUT_NAME,
  PATCH_SIZE,
  PORE_FLOOR_NAME,
  TONE_WEIGHTS_NAME,
} from './features.ts';
import { GraphBuilder } from './graph-builder.ts';
import { addTextureFeatures } from './texture-measures.ts';
import { addToneFeatures } from './tone-measures.ts';

/** Where the committed model lives. */
export const MEASURES_MODEL_PATH = fileURLToPath(new URL('../models/skin-measures.onnx', import.meta.url));

/** ONNX IR 8 and opset 17: the newest pair every onnxruntime release of the last years loads. */
const IR_VERSION = 8n;
const OPSET_VERSION = 17n;

/** Fixed, so the bytes depend on the graph alone; the model's own version is MEASURES_MODEL_VERSION. */
const PRODUCER_NAME = 'skinmatch measures-graph';
const PRODUCER_VERSION = '1';

/** The serialised model. Deterministic: the same source always gives the same bytes. */
export function buildMeasuresModel(): Uint8Array {
  const g = new GraphBuilder();
  const cielab = addCielab(g, INPUT_NAME);
  const colour = addColourFeatures(g, cielab, INPUT_NAME, CLIP_LEVELS_NAME);
  const poreFloor = PORE_FLOOR_NAME;
  const columns: Record<FeatureName, string> = {
    ...colour.features,
    ...addTextureFeatures(g, cielab.l, colour.spots, poreFloor),
    ...addToneFeatures(g, cielab.l, colour.spotDegree, colour.features.l_median, TONE_WEIGHTS_NAME),
  };
  // Each feature is [n, 1, 1, 1]: stacked along the channels in FEATURES order, then flattened to [n, FEATURES.length].
  const stacked = g.node(
    'Concat',
    FEATURES.map((name) => columns[name]),
    ['features_stacked'],
    { axis: 1 },
  );
  g.node('Flatten', [stacked], [OUTPUT_NAME], { axis: 1 });
  // Each feature is also an output of its own, named as the feature: a consumer that needs a few features
  // of a few patches runs the graph cut down to them (measurer.ts).
  const single = FEATURES.map((name) =>
    columns[name] === name ? name : g.node('Identity', [columns[name]], [name]),
  );

  const graph = g.toGraph(
    'skin_measures',
    {
      [INPUT_NAME]: ['n', 3, PATCH_SIZE, PATCH_SIZE],
      [PORE_FLOOR_NAME]: [],
      [CLIP_LEVELS_NAME]: [3],
      [TONE_WEIGHTS_NAME]: ['n', 1, PATCH_SIZE, PATCH_SIZE],
    },
    {
      [OUTPUT_NAME]: ['n', FEATURES.length],
      ...Object.fromEntries(single.map((name) => [name, ['n', 1, 1, 1]])),
    },
  );
  graph.docString = `Raw skin features of ${PATCH_SIZE}×${PATCH_SIZE} sRGB patches; columns: ${FEATURES.join(', ')}.`;

  const model = create(ModelProtoSchema, {
    irVersion: IR_VERSION,
    opsetImport: [create(OperatorSetIdProtoSchema, { domain: '', version: OPSET_VERSION })],
    producerName: PRODUCER_NAME,
    producerVersion: PRODUCER_VERSION,
    docString: MEASURES_MODEL_VERSION,
    graph,
    metadataProps: [
      create(StringStringEntryProtoSchema, { key: 'version', value: MEASURES_MODEL_VERSION }),
      create(StringStringEntryProtoSchema, { key: 'features', value: FEATURES.join(',') }),
    ],
  });
  return toBinary(ModelProtoSchema, model);
}

if (import.meta.main) {
  writeFileSync(MEASURES_MODEL_PATH, buildMeasuresModel());
  console.log(`wrote ${MEASURES_MODEL_PATH} (${MEASURES_MODEL_VERSION})`);
}
