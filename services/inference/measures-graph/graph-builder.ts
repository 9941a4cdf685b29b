/**
 * A minimal ONNX graph builder: nodes, float constants and typed inputs/outputs, in the order they are
 * added. Everything is explicit (names, order, no clock), so the same calls always encode to the same
 * bytes and the committed model can be checked by rebuilding it.
 */
import { create } from '@bufbuild/protobuf';
import {
  type AttributeProto,
  AttributeProto_AttributeType,
  AttributeProtoSchema,
  type GraphProto,
  GraphProtoSchema,
  type NodeProto,
  NodeProtoSchema,
  type TensorProto,
  TensorProto_DataType,
  TensorProtoSchema,
  TensorShapeProto_DimensionSchema,
  TensorShapeProtoSchema,
  TypeProto_TensorSchema,
  TypeProtoSchema,
  type ValueInfoProto,
  ValueInfoProtoSchema,
} from 'onnx-buf';

/** Every attribute this graph needs is an integer or a list of integers (kernel shapes, pads, axes, types). */
export type IntAttributes = Record<string, number | readonly number[]>;

/** A dimension of a declared input or output: a fixed size, or a symbolic name such as the batch 'n'. */
export type Dim = number | string;

/** ONNX's element type code for float32, which the Cast nodes of the graph convert masks to. */
export const FLOAT = TensorProto_DataType.FLOAT;

export class GraphBuilder {
  readonly #nodes: NodeProto[] = [];
  readonly #initializers: TensorProto[] = [];
  readonly #names = new Set<string>();

  /**
   * Appends a node from the default ONNX domain. The node is named after its first output, so names are
   * unique and readable in a model viewer. Returns the first output for chaining.
   */
  node(op: string, inputs: readonly string[], outputs: readonly string[], attrs: IntAttributes = {}): string {
    for (const output of outputs) this.#claim(output);
    this.#nodes.push(
      create(NodeProtoSchema, {
        opType: op,
        name: outputs[0],
        input: [...inputs],
        output: [...outputs],
        attribute: Object.entries(attrs).map(([name, value]) => intAttribute(name, value)),
      }),
    );
    return outputs[0]!;
  }

  /** Adds a float32 initializer of the given shape (row-major values); returns its name. */
  constant(name: string, dims: readonly number[], values: readonly number[]): string {
    const size = dims.reduce((product, dim) => product * dim, 1);
    if (values.length !== size) {
      throw new RangeError(`constant ${name}: ${values.length} values for shape [${dims.join(', ')}]`);
    }
    this.#claim(name);
    this.#initializers.push(
      create(TensorProtoSchema, {
        name,
        dims: dims.map(BigInt),
        dataType: FLOAT,
        floatData: [...values],
      }),
    );
    return name;
  }

  /** An int64 vector initializer (shapes, axes, counts that operators take as inputs); returns its name. */
  ints(name: string, values: readonly number[]): string {
    this.#claim(name);
    this.#initializers.push(
      create(TensorProtoSchema, {
        name,
        dims: [BigInt(values.length)],
        dataType: TensorProto_DataType.INT64,
        int64Data: values.map(BigInt),
      }),
    );
    return name;
  }

  /** A rank-0 float32 constant, broadcast by element-wise operators. */
  scalar(name: string, value: number): string {
    return this.constant(name, [], [value]);
  }

  /** Per-image mean of every channel: [n, c, h, w] → [n, c, 1, 1]. */
  mean(input: string, output: string): string {
    return this.node('GlobalAveragePool', [input], [output]);
  }

  /** Share of the pixels where a boolean mask is true: [n, 1, h, w] → [n, 1, 1, 1]. */
  fraction(mask: string, output: string): string {
    const asFloat = this.node('Cast', [mask], [`${mask}_float`], { to: FLOAT });
    return this.mean(asFloat, output);
  }

  /** The finished graph, with float32 inputs and outputs of the given shapes. */
  toGraph(
    name: string,
    inputs: Readonly<Record<string, readonly Dim[]>>,
    outputs: Readonly<Record<string, readonly Dim[]>>,
  ): GraphProto {
    return create(GraphProtoSchema, {
      name,
      node: this.#nodes,
      initializer: this.#initializers,
      input: Object.entries(inputs).map(([tensor, dims]) => floatValueInfo(tensor, dims)),
      output: Object.entries(outputs).map(([tensor, dims]) => floatValueInfo(tensor, dims)),
    });
  }

  /** A tensor written twice would make the graph invalid; catching it here names the culprit. */
  #claim(name: string): void {
    if (this.#names.has(name)) throw new Error(`tensor ${name} is defined twice`);
    this.#names.add(name);
  }
}

function intAttribute(name: string, value: number | readonly number[]): AttributeProto {
  if (typeof value === 'number') {
    return create(AttributeProtoSchema, { name, type: AttributeProto_AttributeType.INT, i: BigInt(value) });
  }
  return create(AttributeProtoSchema, {
    name,
    type: AttributeProto_AttributeType.INTS,
    ints: value.map(BigInt),
  });
}

function floatValueInfo(name: string, dims: readonly Dim[]): ValueInfoProto {
  const dim = dims.map((size) =>
    create(TensorShapeProto_DimensionSchema, {
      value:
        typeof size === 'number'
          ? { case: 'dimValue', value: BigInt(size) }
          : { case: 'dimParam', value: size },
    }),
  );
  const tensorType = create(TypeProto_TensorSchema, {
    elemType: FLOAT,
    shape: create(TensorShapeProtoSchema, { dim }),
  });
  return create(ValueInfoProtoSchema, {
    name,
    type: create(TypeProtoSchema, { value: { case: 'tensorType', value: tensorType } }),
  });
}
