/**
 * Runs the skin-measures graph (built by measures-graph/build.ts, committed as models/skin-measures.onnx)
 * on the batch of region patches: one row of raw features per region.
 *
 * Each region is measured for the features read from it only (scoring.ts: pores on the cheeks, shine on
 * forehead and nose, …). Regions that need the same features are run together through the graph cut
 * down to those features — its nodes that do not lead to them left out — so the costly texture filters
 * run on two cheek patches, not on all ten (the graph took about 2.5× as long run whole). A feature not
 * read from a region is NaN in its row. The cut graphs are then laid side by side, each on its own input,
 * in two graphs — those that do not read the pore floor, and those that do — so a photo takes two
 * session runs, not one per group (nine): each cut graph computes what it computed alone, to the bit.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import {
  AttributeProto_AttributeType,
  AttributeProtoSchema,
  type ModelProto,
  ModelProtoSchema,
  NodeProtoSchema,
  TensorProto_DataType,
  TensorProtoSchema,
} from 'onnx-buf';
import * as ort from 'onnxruntime-node';
import {
  CLIP_LEVELS_NAME,
  FEATURES,
  type FeatureName,
  INPUT_NAME,
  MEASURES_MODEL_VERSION,
  PATCH_SIZE,
  PORE_FLOOR_NAME,
  TONE_WEIGHTS_NAME,
} from './measures-graph/features.ts';
import { fileVersion } from './model-version.ts';

const MODEL = fileURLToPath(new URL('models/skin-measures.onnx', import.meta.url));
const PATCH_VALUES = 3 * PATCH_SIZE * PATCH_SIZE;
const PLANE_VALUES = PATCH_SIZE * PATCH_SIZE;

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

/** Patches measured together: their places in the batch, the features read from them, and their cut graph. */
interface Group {
  readonly patches: readonly number[];
  readonly features: readonly FeatureName[];
  /** The cut graph's inputs and outputs in the run's graph (each group's own, prefixed: `merge`). */
  readonly input: string;
  /** Its tone weights' input, when it reads them (features that read `l_std`). */
  readonly weights?: string;
  readonly outputs: readonly string[];
}

/**
 * One session.run: the cut graphs of several groups side by side in one graph, each on its own input, and
 * whether it reads the pore floor (then it runs after the one that does not) and the clip levels.
 */
interface Run {
  readonly groups: readonly Group[];
  readonly session: ort.InferenceSession;
  readonly floored: boolean;
  readonly clipped: boolean;
}

/** Clip levels under which no pixel counts as clipped in the photo. */
const NOT_CLIPPED = [Infinity, Infinity, Infinity] as const;

/** The pore floor of a batch (L*), from the features of the patches whose graph does not read it. */
export type PoreFloor = (rows: readonly Features[]) => number;

export class Measurer {
  readonly #runs: readonly Run[];
  readonly #batch: number;
  /** The features read from each patch: only these are written to its row. */
  readonly #reads: readonly ReadonlySet<FeatureName>[];
  /** Tone weights of 1 for every pixel of a batch. */
  readonly #everyPixel: Float32Array;
  /** The graph's declared version and the hash of the file loaded. */
  readonly version = fileVersion(MODEL, MEASURES_MODEL_VERSION);

  private constructor(runs: readonly Run[], needs: readonly (readonly FeatureName[])[]) {
    this.#runs = runs;
    this.#batch = needs.length;
    this.#reads = needs.map((features) => new Set(features));
    this.#everyPixel = new Float32Array(needs.length * PLANE_VALUES).fill(1);
  }

  /**
   * `needs[i]`: the features read from patch i of every batch. The patches of each set in `together` are
   * measured as one group, each for the features any of them is read for (the cheeks, each read for one
   * half's redness: one group of two costs less than two of one, whose graphs are mostly the same nodes);
   * a patch's row still holds only its own.
   */
  static async load(
    needs: readonly (readonly FeatureName[])[],
    together: readonly (readonly number[])[] = [],
  ): Promise<Measurer> {
    const model = fromBinary(ModelProtoSchema, readFileSync(MODEL));
    const byFeatures = new Map<string, number[]>();
    const measuredFor = needs.map((features, i) => {
      const set = together.find((patches) => patches.includes(i));
      return set === undefined ? features : [...new Set(set.flatMap((p) => needs[p] ?? []))];
    });
    measuredFor.forEach((features, i) => {
      if (features.length === 0) return;
      const key = [...features].sort().join(',');
      byFeatures.set(key, [...(byFeatures.get(key) ?? []), i]);
    });
    const reads = (cut: ModelProto, name: string) => cut.graph!.input.some((input) => input.name === name);
    const cuts = [...byFeatures].map(([key, patches]) => {
      const features = key.split(',') as FeatureName[];
      const cut = cutDown(model, features);
      return { patches, features, cut, weighted: reads(cut, TONE_WEIGHTS_NAME) };
    });
    // The groups that read the floor run after those that do not, each side in one run (a run's fixed cost
    // is about 0.05–0.1 ms), its groups in the order of their first patch.
    const runs = await Promise.all(
      [false, true].map(async (floored) => {
        const side = cuts.filter(({ cut }) => reads(cut, PORE_FLOOR_NAME) === floored);
        if (side.length === 0) return undefined;
        const groups = side.map(({ patches, features, weighted }, i) => ({
          patches,
          features,
          input: `${groupPrefix(i)}${INPUT_NAME}`,
          ...(weighted && { weights: `${groupPrefix(i)}${TONE_WEIGHTS_NAME}` }),
          outputs: features.map((name) => `${groupPrefix(i)}${name}`),
        }));
        const merged = joinOutputs(
          merge(side.map(({ cut }) => cut)),
          groups.flatMap(({ outputs }) => outputs),
        );
        const session = await ort.InferenceSession.create(
          toBinary(ModelProtoSchema, merged),
          MEASURES_SESSION_OPTIONS,
        );
        return {
          groups,
          session,
          floored,
          clipped: session.inputNames.includes(CLIP_LEVELS_NAME),
        };
      }),
    );
    return new Measurer(
      runs.filter((run) => run !== undefined),
      needs,
    );
  }

  /** Frees the model; measuring fails from then on. */
  async release(): Promise<void> {
    await Promise.all(this.#runs.map((run) => run.session.release()));
  }

  /**
   * Features of each patch of a batch laid out as float32 [n, 3, 64, 64], n as `needs` at load. `poreFloor`
   * gives the pore floor from the rows of the groups that do not read it (0 when absent); `clipLevels` the
   * per-channel levels from which a pixel was clipped in the photo (colour-constancy.ts clipLevels; when
   * absent, none was); `toneWeights` float32 [n, 1, 64, 64] how much each pixel counts in uneven tone
   * (tone-weights.ts; when absent, every pixel fully).
   */
  async measure(
    patches: Float32Array,
    poreFloor?: PoreFloor,
    clipLevels: readonly number[] = NOT_CLIPPED,
    toneWeights: Float32Array = this.#everyPixel,
  ): Promise<Features[]> {
    if (patches.length !== this.#batch * PATCH_VALUES)
      throw new Error(`expected ${this.#batch} patches, got ${patches.length / PATCH_VALUES}`);
    if (toneWeights.length !== this.#batch * PLANE_VALUES)
      throw new Error(
        `expected the tone weights of ${this.#batch} patches, got ${toneWeights.length / PLANE_VALUES}`,
      );
    const rows = Array.from(
      { length: this.#batch },
      () => Object.fromEntries(FEATURES.map((name) => [name, Number.NaN])) as Record<FeatureName, number>,
    );
    let floor: number | undefined;
    for (const { groups, session, floored, clipped } of this.#runs) {
      const feeds: Record<string, ort.Tensor> = {};
      for (const { patches: places, input, weights } of groups) {
        const dims = [places.length, 3, PATCH_SIZE, PATCH_SIZE];
        feeds[input] = new ort.Tensor('float32', gather(patches, places, PATCH_VALUES), dims);
        if (weights) {
          const planes = gather(toneWeights, places, PLANE_VALUES);
          feeds[weights] = new ort.Tensor('float32', planes, [places.length, 1, PATCH_SIZE, PATCH_SIZE]);
        }
      }
      if (clipped) feeds[CLIP_LEVELS_NAME] = new ort.Tensor('float32', Float32Array.from(clipLevels), [3]);
      if (floored) {
        floor ??= poreFloor?.(rows) ?? 0;
        feeds[PORE_FLOOR_NAME] = new ort.Tensor('float32', Float32Array.of(floor), []);
      }
      // Every group's features, each for its patches in turn, in one output (joinOutputs).
      const values = (await session.run(feeds))[JOINED_OUTPUT]!.data as Float32Array;
      let at = 0;
      for (const { patches: places, features } of groups) {
        for (const name of features) {
          places.forEach((p, k) => {
            if (this.#reads[p]!.has(name)) rows[p]![name] = values[at + k]!;
          });
          at += places.length;
        }
      }
    }
    return rows;
  }
}

/**
 * The patches (of `size` values each) at `places`: a view of the batch when they follow one another
 * (regions of a pair do), else a copy.
 */
function gather(patches: Float32Array, places: readonly number[], size: number): Float32Array {
  const first = places[0]!;
  if (places.every((p, k) => p === first + k))
    return patches.subarray(first * size, (first + places.length) * size);
  const input = new Float32Array(places.length * size);
  places.forEach((p, k) => {
    input.set(patches.subarray(p * size, (p + 1) * size), k * size);
  });
  return input;
}

/**
 * The model with only `features` as outputs and only the nodes, constants and inputs they are computed
 * from: the builder writes nodes in the order they are computed, so one backward pass finds them.
 */
function cutDown(model: ModelProto, features: readonly FeatureName[]): ModelProto {
  const graph = model.graph!;
  const needed = new Set<string>(features);
  const nodes = [...graph.node].reverse().filter((node) => {
    if (!node.output.some((tensor) => needed.has(tensor))) return false;
    for (const tensor of node.input) needed.add(tensor);
    return true;
  });
  const cut = fromBinary(ModelProtoSchema, toBinary(ModelProtoSchema, model));
  cut.graph!.node = nodes.reverse();
  cut.graph!.initializer = graph.initializer.filter((tensor) => needed.has(tensor.name));
  cut.graph!.input = graph.input.filter((input) => needed.has(input.name));
  cut.graph!.output = graph.output.filter((output) => features.includes(output.name as FeatureName));
  return cut;
}

/** The prefix of the i-th cut graph's tensors, nodes and batch dimension in a merged graph. */
function groupPrefix(i: number): string {
  return `g${i}/`;
}

/** Inputs every cut graph reads as the same tensor: one input of the merged graph. */
const SHARED_INPUTS: ReadonlySet<string> = new Set([PORE_FLOOR_NAME, CLIP_LEVELS_NAME]);

/**
 * Cut graphs side by side in one graph: the i-th's nodes, constants, patch input, batch dimension and
 * outputs renamed with groupPrefix(i), the pore floor and clip levels shared. Each computes what it
 * computed alone, node for node; one run then does the work of several.
 */
function merge(cuts: readonly ModelProto[]): ModelProto {
  const merged = fromBinary(ModelProtoSchema, toBinary(ModelProtoSchema, cuts[0]!));
  const graph = merged.graph!;
  graph.node = [];
  graph.initializer = [];
  graph.input = [];
  graph.output = [];
  const shared = new Set<string>();
  cuts.forEach((cut, i) => {
    const prefix = groupPrefix(i);
    const rename = (tensor: string) =>
      tensor === '' || SHARED_INPUTS.has(tensor) ? tensor : prefix + tensor;
    const copy = fromBinary(ModelProtoSchema, toBinary(ModelProtoSchema, cut)).graph!;
    for (const node of copy.node) {
      node.name = node.name === '' ? '' : prefix + node.name;
      node.input = node.input.map(rename);
      node.output = node.output.map(rename);
      graph.node.push(node);
    }
    for (const tensor of copy.initializer) {
      tensor.name = rename(tensor.name);
      graph.initializer.push(tensor);
    }
    for (const info of [...copy.input, ...copy.output]) {
      if (SHARED_INPUTS.has(info.name)) {
        if (shared.has(info.name)) continue;
        shared.add(info.name);
      } else {
        info.name = rename(info.name);
        const type = info.type?.value;
        for (const dim of type?.case === 'tensorType' ? (type.value.shape?.dim ?? []) : []) {
          if (dim.value.case === 'dimParam') dim.value.value = prefix + dim.value.value;
        }
      }
      (copy.input.includes(info) ? graph.input : graph.output).push(info);
    }
  });
  return merged;
}

/** The one output of a merged graph: every group's features, flattened and joined (joinOutputs). */
const JOINED_OUTPUT = 'measured';

/**
 * The merged graph with `outputs` (each [n, 1, 1, 1]) flattened and joined in that order as its one output,
 * JOINED_OUTPUT: onnxruntime-node turns every output of a run into a tensor of its own (about 1.6 µs each,
 * some thirty a photo), a Concat of a few values costs less. The values are the same.
 */
function joinOutputs(model: ModelProto, outputs: readonly string[]): ModelProto {
  const graph = model.graph!;
  const flat = '_joined_flat_shape';
  graph.initializer.push(
    create(TensorProtoSchema, {
      name: flat,
      dims: [1n],
      dataType: TensorProto_DataType.INT64,
      int64Data: [-1n],
    }),
  );
  for (const name of outputs)
    graph.node.push(
      create(NodeProtoSchema, {
        opType: 'Reshape',
        name: `${name}/joined`,
        input: [name, flat],
        output: [`${name}/joined`],
      }),
    );
  graph.node.push(
    create(NodeProtoSchema, {
      opType: 'Concat',
      name: JOINED_OUTPUT,
      input: outputs.map((name) => `${name}/joined`),
      output: [JOINED_OUTPUT],
      attribute: [
        create(AttributeProtoSchema, { name: 'axis', type: AttributeProto_AttributeType.INT, i: 0n }),
      ],
    }),
  );
  const info = graph.output[0]!;
  info.name = JOINED_OUTPUT;
  const type = info.type?.value;
  // Its length is the sum of the groups' batches: declared without a shape.
  if (type?.case === 'tensorType') type.value.shape = undefined;
  graph.output = [info];
  return model;
}
