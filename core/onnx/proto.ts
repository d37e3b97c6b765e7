/**
 * The ONNX protobuf seam: the few message shapes petri-serve writes and reads, and their
 * encoding and decoding through the maintained `onnx-proto` package (never hand-written wire
 * format).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decodeModel, encodeModel } from "./proto.ts";
 * const bytes = encodeModel({ irVersion: 8, opsetImport: [{ domain: "", version: 17 }] });
 * assert.deepEqual(decodeModel(bytes).irVersion, 8);
 * ```
 *
 * @module
 */

import onnxProto from "onnx-proto";

/** Tensor element types used here (ONNX `TensorProto.DataType`). */
export const DataType = { FLOAT: 1, INT64: 7, BOOL: 9 } as const;

/** ONNX attribute type codes used here (`AttributeProto.AttributeType`). */
export const AttributeType = { FLOAT: 1, INT: 2, TENSOR: 4, GRAPH: 5, INTS: 7 } as const;

/** A constant tensor (initializer or attribute value). */
export interface TensorProto {
  name?: string;
  dims?: number[];
  dataType?: number;
  rawData?: Uint8Array;
}

/** A node attribute. */
export interface AttributeProto {
  name: string;
  type: number;
  i?: number;
  f?: number;
  ints?: number[];
  t?: TensorProto;
  g?: GraphProto;
}

/** One operator application. */
export interface NodeProto {
  opType: string;
  input: string[];
  output: string[];
  name?: string;
  attribute?: AttributeProto[];
}

/** A dimension: fixed size or symbolic name. */
export interface Dimension {
  dimValue?: number;
  dimParam?: string;
}

/** A typed graph input or output. */
export interface ValueInfoProto {
  name: string;
  type?: { tensorType?: { elemType?: number; shape?: { dim?: Dimension[] } } };
}

/** A (sub)graph. */
export interface GraphProto {
  name?: string;
  node?: NodeProto[];
  initializer?: TensorProto[];
  input?: ValueInfoProto[];
  output?: ValueInfoProto[];
}

/** A whole model file. */
export interface ModelProto {
  irVersion?: number;
  opsetImport?: { domain?: string; version?: number }[];
  producerName?: string;
  producerVersion?: string;
  graph?: GraphProto;
  metadataProps?: { key?: string; value?: string }[];
}

interface Codec {
  create(m: ModelProto): unknown;
  encode(m: unknown): { finish(): Uint8Array };
  decode(bytes: Uint8Array): unknown;
  toObject(m: unknown, options: { longs: NumberConstructor; bytes: unknown }): ModelProto;
}

const codec = (onnxProto as unknown as { onnx: { ModelProto: Codec } }).onnx.ModelProto;

/**
 * Serialises a model to ONNX protobuf bytes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { encodeModel } from "./proto.ts";
 * assert.deepEqual(encodeModel({ irVersion: 8 }).length > 0, true);
 * ```
 */
export function encodeModel(model: ModelProto): Uint8Array {
  return codec.encode(codec.create(model)).finish();
}

/**
 * Parses ONNX protobuf bytes; throws when the bytes are not a protobuf message.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decodeModel, encodeModel } from "./proto.ts";
 * assert.deepEqual(decodeModel(encodeModel({ producerName: "x" })).producerName, "x");
 * ```
 */
export function decodeModel(bytes: Uint8Array): ModelProto {
  return codec.toObject(codec.decode(bytes), { longs: Number, bytes: Uint8Array });
}

/**
 * A float32 tensor of the given shape.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { floatTensor } from "./proto.ts";
 * assert.deepEqual(floatTensor("w", [2], new Float32Array([1, 2])).dims, [2]);
 * ```
 */
export function floatTensor(name: string, dims: number[], data: Float32Array): TensorProto {
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return { name, dims, dataType: DataType.FLOAT, rawData: bytes.slice() };
}
