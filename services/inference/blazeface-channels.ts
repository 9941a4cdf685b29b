/**
 * BlazeFace's barracuda exports, rewritten at load so that onnxruntime keeps the network in its blocked
 * layout, with the very same sums. Each residual block adds its input to its convolution's output, the
 * input first padded with zero channels by a `Concat` with a `ConstantOfShape` (24 → 28 channels, 28 →
 * 32, …). onnxruntime runs convolutions in NCHWc (channels in blocks of 16 on AVX-512, 8 on AVX2) but not
 * that `Concat`: from the first padding on, it turned each block's output back to plain layout for the
 * `Concat`, `Add` and `Relu` and back again for the next convolution, about a third of a run
 * (docs/inference.md, 2026-11-28).
 *
 * Here every tensor between the convolutions gets a multiple of 16 channels, the added ones zero (zero
 * filters and bias, so a `Relu` or `MaxPool` keeps them zero) as NCHWc holds them anyway: a block's input
 * is then as wide as its output and the padding goes. Where the output gains a channel block over the input
 * (32 → 48), the convolution is split at the input's width: the part as wide as the input is added to it,
 * the rest stands alone, and a `Concat` of whole blocks, which NCHWc runs, joins them. The heads keep their
 * channels. Two things keep every value to the bit:
 *  - an `Add` the file ran apart stays apart: onnxruntime would fold it into the convolution before it,
 *    which adds in another order, so that convolution ends in an identity `Clip` (a convolution with an
 *    activation takes no sum);
 *  - a block whose depthwise convolution has a channel count that is not a multiple of 4 ran in plain
 *    layout (onnxruntime's blocked reorder needs one), and its kernels sum in another order: it is kept as
 *    shipped, reading its input's first channels.
 */
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import {
  AttributeProto_AttributeType,
  AttributeProtoSchema,
  type GraphProto,
  ModelProtoSchema,
  type NodeProto,
  NodeProtoSchema,
  type TensorProto,
  TensorProto_DataType,
  TensorProtoSchema,
} from 'onnx-buf';

/** Channels are padded to a multiple of this: NCHWc's block on AVX-512 (twice AVX2's). */
export const CHANNEL_BLOCK = 16;
/** onnxruntime reorders a plain tensor to NCHWc only when its channels are a multiple of this. */
const REORDERABLE = 4;

const aligned = (channels: number) => Math.ceil(channels / CHANNEL_BLOCK) * CHANNEL_BLOCK;

/** The model with its inner channels aligned, as bytes for `InferenceSession.create`. */
export function alignChannels(bytes: Uint8Array): Uint8Array {
  const model = fromBinary(ModelProtoSchema, bytes);
  const graph = model.graph!;
  const apart = addsApart(graph);
  const kept = keepPlainBlocks(graph);
  const widths = widenConvolutions(graph, kept);
  dropPadding(graph, widths, kept);
  keepApart(graph, apart, kept);
  // The file's shapes between nodes name the old channel counts; onnxruntime infers them again.
  graph.valueInfo = [];
  return toBinary(ModelProtoSchema, model);
}

/** The graph's initializers by name (a fresh map: the rewrite adds some). */
const initializersOf = (graph: GraphProto) => new Map(graph.initializer.map((t) => [t.name, t]));
const readersOf = (graph: GraphProto, name: string) => graph.node.filter((n) => n.input.includes(name));

/**
 * The blocks kept as shipped (a depthwise convolution not reorderable, its pointwise one, their Add, Relu,
 * MaxPool and padding), each now reading its input's first channels through a Slice. Returns their nodes.
 */
function keepPlainBlocks(graph: GraphProto): Set<NodeProto> {
  const initializers = initializersOf(graph);
  const kept = new Set<NodeProto>();
  for (const depthwise of graph.node.filter((n) => n.opType === 'Conv' && groupOf(n) > 1)) {
    const channels = Number(initializers.get(depthwise.input[1]!)!.dims[0]);
    if (channels % REORDERABLE === 0) continue;
    const input = depthwise.input[0]!;
    const plain = `${input}_plain`;
    const bound = (name: string, value: number) => {
      graph.initializer.push(
        create(TensorProtoSchema, {
          name,
          dataType: TensorProto_DataType.INT64,
          dims: [1n],
          int64Data: [BigInt(value)],
        }),
      );
      return name;
    };
    const slice = create(NodeProtoSchema, {
      opType: 'Slice',
      name: plain,
      input: [input, bound(`${plain}_start`, 0), bound(`${plain}_end`, channels), bound(`${plain}_axis`, 1)],
      output: [plain],
    });
    const readers = readersOf(graph, input);
    for (const reader of readers) reader.input = reader.input.map((i) => (i === input ? plain : i));
    graph.node.splice(graph.node.indexOf(readers[0]!), 0, slice);
    // Everything from the Slice to the block's Relu, which reads back into the aligned network.
    const pointwise = readersOf(graph, depthwise.output[0]!)[0]!;
    const add = readersOf(graph, pointwise.output[0]!)[0]!;
    const relu = readersOf(graph, add.output[0]!)[0]!;
    const concat = graph.node.find((n) => n.output[0] === add.input.find((i) => i !== pointwise.output[0]));
    const pooled = readers.filter((n) => n.opType === 'MaxPool');
    const padding = graph.node.find((n) => concat?.input[1] === n.output[0]);
    for (const node of [depthwise, pointwise, add, relu, concat, padding, ...pooled])
      if (node) kept.add(node);
    const out = Number(initializers.get(pointwise.input[1]!)!.dims[0]);
    if (out !== aligned(out))
      throw new Error(`block of ${depthwise.name} kept as shipped but its ${out} channels are not aligned`);
  }
  return kept;
}

/** Every convolution's filters padded with zeros to its input's width and an aligned output; widths by tensor. */
function widenConvolutions(graph: GraphProto, kept: Set<NodeProto>): Map<string, number> {
  const initializers = initializersOf(graph);
  const widths = new Map<string, number>();
  const widest = (node: NodeProto) => Math.max(...node.input.map((i) => widths.get(i) ?? 0));
  const heads = new Set(graph.node.filter((n) => n.opType === 'Transpose').flatMap((n) => n.input));
  for (const node of graph.node) {
    const [input] = node.input;
    const filters = node.opType === 'Conv' ? initializers.get(node.input[1]!)! : undefined;
    if (node.opType === 'Slice')
      widths.set(node.output[0]!, Number(initializers.get(node.input[2]!)!.int64Data[0]));
    // An Add's other input may be a padding, as wide as its convolution once dropPadding is done.
    if (['Relu', 'MaxPool', 'Add'].includes(node.opType)) widths.set(node.output[0]!, widest(node));
    if (!filters) continue;
    if (kept.has(node)) {
      widths.set(node.output[0]!, Number(filters.dims[0]));
      continue;
    }
    const [out, perGroup, kh, kw] = filters.dims.map(Number) as [number, number, number, number];
    const width = widths.get(input!) ?? perGroup;
    if (groupOf(node) > 1) {
      // Depthwise: one filter a channel, so the added channels get zero filters.
      setFloats(filters, [width, 1, kh, kw], padFilters(filters, width, 1));
      node.attribute.find((a) => a.name === 'group')!.i = BigInt(width);
      widths.set(node.output[0]!, width);
      continue;
    }
    const outWidth = heads.has(node.output[0]!) ? out : aligned(out);
    setFloats(filters, [outWidth, width, kh, kw], padFilters(filters, outWidth, width));
    const bias = node.input[2] ? initializers.get(node.input[2]) : undefined;
    if (bias) {
      const values = new Float32Array(outWidth);
      values.set(floats(bias));
      setFloats(bias, [outWidth], values);
    }
    widths.set(node.output[0]!, outWidth);
  }
  return widths;
}

/**
 * Each Add(convolution, Concat(x, zeros)) outside the kept blocks: x added as it is when it is as wide as
 * the convolution now, else the convolution split at x's width (see the file's comment); either way the
 * Add stays apart from the convolution, as it ran in plain layout.
 */
function dropPadding(graph: GraphProto, widths: Map<string, number>, kept: Set<NodeProto>): void {
  const producer = new Map(graph.node.flatMap((n) => n.output.map((o) => [o, n] as const)));
  const dropped = new Set<NodeProto>();
  const before = new Map<NodeProto, NodeProto[]>();
  for (const concat of graph.node.filter((n) => n.opType === 'Concat' && !kept.has(n))) {
    const [x, zeros] = concat.input as [string, string];
    const padding = producer.get(zeros);
    const [add, ...others] = readersOf(graph, concat.output[0]!);
    const axis = concat.attribute.find((a) => a.name === 'axis')?.i;
    if (padding?.opType !== 'ConstantOfShape' || padding.attribute.length > 0 || axis !== 1n)
      throw new Error(`unexpected Concat ${concat.name}: not a padding with zero channels`);
    if (add?.opType !== 'Add' || others.length > 0)
      throw new Error(`unexpected Concat ${concat.name}: not read by one Add`);
    const sum = add.input.find((i) => i !== concat.output[0])!;
    dropped.add(concat);
    if (readersOf(graph, zeros).length === 1) dropped.add(padding);
    if (widths.get(x) === widths.get(sum)) {
      add.input = add.input.map((i) => (i === concat.output[0] ? x : i));
      continue;
    }
    const [relu, ...more] = readersOf(graph, add.output[0]!);
    const convolution = producer.get(sum)!;
    if (relu?.opType !== 'Relu' || convolution.opType !== 'Conv' || more.length > 0)
      throw new Error(`unexpected Add ${add.name}: not a convolution's, read by one Relu`);
    for (const node of [add, relu, convolution]) dropped.add(node);
    before.set(relu, splitAdd(graph, convolution, x, widths.get(x)!, add.name, relu.output[0]!));
  }
  graph.node = graph.node.flatMap((n) => [...(before.get(n) ?? []), ...(dropped.has(n) ? [] : [n])]);
}

/** Relu(conv + [x; 0]) as [Relu(conv₁ + x); Relu(conv₂)], conv₁ the first `width` filters of conv. */
function splitAdd(
  graph: GraphProto,
  conv: NodeProto,
  x: string,
  width: number,
  addName: string,
  output: string,
): NodeProto[] {
  const initializers = initializersOf(graph);
  const filters = initializers.get(conv.input[1]!)!;
  const bias = initializers.get(conv.input[2]!)!;
  const [out, ...rest] = filters.dims.map(Number) as [number, number, number, number];
  const size = rest.reduce((a, b) => a * b);
  const part = (suffix: string, from: number, to: number): NodeProto => {
    const name = `${conv.output[0]}_${suffix}`;
    const tensor = (kind: string, dims: number[], values: Float32Array) => {
      const t = create(TensorProtoSchema, { name: `${name}_${kind}`, dataType: TensorProto_DataType.FLOAT });
      setFloats(t, dims, values);
      graph.initializer.push(t);
      return t.name;
    };
    return create(NodeProtoSchema, {
      opType: 'Conv',
      name,
      input: [
        conv.input[0]!,
        tensor('w', [to - from, ...rest], floats(filters).slice(from * size, to * size)),
        tensor('b', [to - from], floats(bias).slice(from, to)),
      ],
      output: [name],
      attribute: conv.attribute,
    });
  };
  const node = (opType: string, input: string[], name: string) =>
    create(NodeProtoSchema, { opType, name, input, output: [name] });
  const low = part('low', 0, width);
  const high = part('high', width, out);
  const sum = create(NodeProtoSchema, {
    opType: 'Add',
    name: addName,
    input: [low.output[0]!, x],
    output: [`${output}_low_sum`],
  });
  const lowRelu = node('Relu', [sum.output[0]!], `${output}_low`);
  const highRelu = node('Relu', [high.output[0]!], `${output}_high`);
  const joined = create(NodeProtoSchema, {
    opType: 'Concat',
    name: `${output}_joined`,
    input: [lowRelu.output[0]!, highRelu.output[0]!],
    output: [output],
    attribute: [
      create(AttributeProtoSchema, { name: 'axis', type: AttributeProto_AttributeType.INT, i: 1n }),
    ],
  });
  return [low, high, sum, lowRelu, highRelu, joined];
}

/**
 * The Adds onnxruntime ran apart from their convolution in the file as shipped, by name: those reading,
 * through Adds, Relus and MaxPools, a tensor it held in plain layout — a padding's Concat, or a MaxPool of
 * channels that are not whole blocks (its blocked MaxPool takes only those). A convolution's output is blocked.
 */
function addsApart(graph: GraphProto): Set<string> {
  const initializers = initializersOf(graph);
  const channels = new Map<string, number>();
  const plain = new Set<string>();
  const apart = new Set<string>();
  for (const node of graph.node) {
    const [input] = node.input;
    const reads = node.input.some((i) => plain.has(i));
    const width =
      node.opType === 'Conv' ? Number(initializers.get(node.input[1]!)!.dims[0]) : channels.get(input!);
    if (width !== undefined) channels.set(node.output[0]!, width);
    const unblocked = node.opType === 'MaxPool' && (width ?? 0) % CHANNEL_BLOCK !== 0;
    if (node.opType === 'Concat' || unblocked || (reads && ['Add', 'Relu', 'MaxPool'].includes(node.opType)))
      plain.add(node.output[0]!);
    if (node.opType === 'Add' && reads) apart.add(node.name);
  }
  return apart;
}

/** Each Add in `apart` (outside the kept blocks) kept apart from the convolution it reads. */
function keepApart(graph: GraphProto, apart: Set<string>, kept: Set<NodeProto>): void {
  const producer = new Map(graph.node.flatMap((n) => n.output.map((o) => [o, n] as const)));
  const before = new Map<NodeProto, NodeProto>();
  for (const add of graph.node.filter((n) => n.opType === 'Add' && apart.has(n.name) && !kept.has(n))) {
    const convolutions = add.input.filter((i) => producer.get(i)?.opType === 'Conv');
    if (convolutions.length !== 1) throw new Error(`unexpected Add ${add.name}: not one convolution's`);
    const clip = identityClip(graph, convolutions[0]!);
    add.input = add.input.map((i) => (i === convolutions[0] ? clip.output[0]! : i));
    before.set(add, clip);
  }
  graph.node = graph.node.flatMap((n) => (before.has(n) ? [before.get(n)!, n] : [n]));
}

/**
 * `input` through a Clip to ±FLT_MAX: the same values, and onnxruntime takes it into the convolution before
 * as its activation, so that it does not fold the Add after into that convolution.
 */
function identityClip(graph: GraphProto, input: string): NodeProto {
  const [low, high] = ['identity_clip_low', 'identity_clip_high'];
  if (!graph.initializer.some((t) => t.name === low)) {
    for (const [name, value] of [
      [low, -3.4028234663852886e38],
      [high, 3.4028234663852886e38],
    ] as const) {
      const t = create(TensorProtoSchema, { name, dataType: TensorProto_DataType.FLOAT });
      setFloats(t, [], Float32Array.of(value));
      graph.initializer.push(t);
    }
  }
  const output = `${input}_unfused`;
  return create(NodeProtoSchema, {
    opType: 'Clip',
    name: output,
    input: [input, low, high],
    output: [output],
  });
}

function groupOf(node: NodeProto): number {
  return Number(node.attribute.find((a) => a.name === 'group')?.i ?? 1n);
}

function floats(tensor: TensorProto): Float32Array {
  if (tensor.floatData.length > 0) return Float32Array.from(tensor.floatData);
  const raw = tensor.rawData;
  return new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
}

function setFloats(tensor: TensorProto, dims: number[], values: Float32Array): void {
  tensor.dims = dims.map(BigInt);
  tensor.floatData = [];
  tensor.rawData = Uint8Array.from(new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
}

/** An [out, in, kh, kw] filter tensor's values inside zero ones of [outWidth, inWidth, kh, kw]. */
function padFilters(filters: TensorProto, outWidth: number, inWidth: number): Float32Array {
  const [out, width, kh, kw] = filters.dims.map(Number) as [number, number, number, number];
  const values = floats(filters);
  const padded = new Float32Array(outWidth * inWidth * kh * kw);
  const k = kh * kw;
  for (let o = 0; o < out; o++)
    for (let i = 0; i < width; i++)
      padded.set(values.subarray((o * width + i) * k, (o * width + i + 1) * k), (o * inWidth + i) * k);
  return padded;
}
