/**
 * The ONNX protobuf seam: the few message shapes petri-serve writes and reads, as tables of
 * their fields from `onnx.proto`, written in protobufjs's order so the bytes match what the
 * `onnx-proto` package wrote (which is not used: its protobufjs install script made Deno warn
 * in every program importing the core). Unknown fields are skipped when reading.
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

import { ProtoReader, ProtoWriter, WireError, WireType } from "./wire.ts";

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

/** How a field's values are written. */
type Scalar = "int32" | "int64" | "float" | "string" | "bytes";

/** One field of a message: its number, its property, its type, and whether it repeats. */
interface Field {
  readonly number: number;
  readonly key: string;
  readonly type: Scalar | (() => Message);
  readonly repeated?: boolean;
}

/** A message's fields, in the order they are written. */
type Message = readonly Field[];

// From onnx.proto (ONNX IR version 8). Repeated numbers are written packed, as protobufjs does;
// both forms are read.
const OPERATOR_SET_ID: Message = [
  { number: 1, key: "domain", type: "string" },
  { number: 2, key: "version", type: "int64" },
];
const STRING_STRING_ENTRY: Message = [
  { number: 1, key: "key", type: "string" },
  { number: 2, key: "value", type: "string" },
];
const TENSOR: Message = [
  { number: 1, key: "dims", type: "int64", repeated: true },
  { number: 2, key: "dataType", type: "int32" },
  { number: 8, key: "name", type: "string" },
  { number: 9, key: "rawData", type: "bytes" },
];
const DIMENSION: Message = [
  { number: 1, key: "dimValue", type: "int64" },
  { number: 2, key: "dimParam", type: "string" },
];
const TENSOR_SHAPE: Message = [{ number: 1, key: "dim", type: () => DIMENSION, repeated: true }];
const TENSOR_TYPE: Message = [
  { number: 1, key: "elemType", type: "int32" },
  { number: 2, key: "shape", type: () => TENSOR_SHAPE },
];
const TYPE: Message = [{ number: 1, key: "tensorType", type: () => TENSOR_TYPE }];
const VALUE_INFO: Message = [
  { number: 1, key: "name", type: "string" },
  { number: 2, key: "type", type: () => TYPE },
];
const ATTRIBUTE: Message = [
  { number: 1, key: "name", type: "string" },
  { number: 2, key: "f", type: "float" },
  { number: 3, key: "i", type: "int64" },
  { number: 5, key: "t", type: () => TENSOR },
  { number: 6, key: "g", type: () => GRAPH },
  { number: 8, key: "ints", type: "int64", repeated: true },
  { number: 20, key: "type", type: "int32" },
];
const NODE: Message = [
  { number: 1, key: "input", type: "string", repeated: true },
  { number: 2, key: "output", type: "string", repeated: true },
  { number: 3, key: "name", type: "string" },
  { number: 4, key: "opType", type: "string" },
  { number: 5, key: "attribute", type: () => ATTRIBUTE, repeated: true },
];
const GRAPH: Message = [
  { number: 1, key: "node", type: () => NODE, repeated: true },
  { number: 2, key: "name", type: "string" },
  { number: 5, key: "initializer", type: () => TENSOR, repeated: true },
  { number: 11, key: "input", type: () => VALUE_INFO, repeated: true },
  { number: 12, key: "output", type: () => VALUE_INFO, repeated: true },
];
const MODEL: Message = [
  { number: 1, key: "irVersion", type: "int64" },
  { number: 2, key: "producerName", type: "string" },
  { number: 3, key: "producerVersion", type: "string" },
  { number: 7, key: "graph", type: () => GRAPH },
  { number: 8, key: "opsetImport", type: () => OPERATOR_SET_ID, repeated: true },
  { number: 14, key: "metadataProps", type: () => STRING_STRING_ENTRY, repeated: true },
];

/** Deeper nesting than this is refused (ours is at most 10: a tensor in an `If` branch). */
const MAX_DEPTH = 64;

type Properties = Record<string, unknown>;

function wireTypeOf(type: Field["type"]): number {
  if (type === "float") return WireType.I32;
  return type === "int32" || type === "int64" ? WireType.VARINT : WireType.LEN;
}

function writeScalar(writer: ProtoWriter, type: Scalar, value: unknown): void {
  switch (type) {
    case "int32":
      return writer.int32(value as number);
    case "int64":
      return writer.int64(value as number);
    case "float":
      return writer.float(value as number);
    case "string":
      return writer.string(value as string);
    case "bytes":
      return writer.bytes(value as Uint8Array);
  }
}

function writeMessage(writer: ProtoWriter, message: Message, value: Properties): void {
  for (const field of message) {
    const item = value[field.key];
    // As protobufjs: a field is written when it is an own property that is not null.
    if (item == null || !Object.hasOwn(value, field.key)) continue;
    const { type } = field;
    if (!field.repeated) {
      writeOne(writer, field, item);
    } else if ((item as unknown[]).length > 0) {
      const items = item as unknown[];
      if (typeof type === "string" && wireTypeOf(type) !== WireType.LEN) {
        writer.tag(field.number, WireType.LEN);
        writer.nested(() => items.forEach((one) => writeScalar(writer, type, one)));
      } else {
        for (const one of items) writeOne(writer, field, one);
      }
    }
  }
}

function writeOne(writer: ProtoWriter, field: Field, value: unknown): void {
  const { type } = field;
  writer.tag(field.number, wireTypeOf(type));
  if (typeof type === "string") writeScalar(writer, type, value);
  else writer.nested(() => writeMessage(writer, type(), value as Properties));
}

function readScalar(reader: ProtoReader, type: Scalar): unknown {
  switch (type) {
    case "int32":
      return reader.int32();
    case "int64":
      return reader.int64();
    case "float":
      return reader.float();
    case "string":
      return reader.string();
    case "bytes":
      return reader.bytes();
  }
}

const fieldsByNumber = new WeakMap<Message, Map<number, Field>>();

function readMessage(reader: ProtoReader, message: Message, depth: number): Properties {
  if (depth > MAX_DEPTH) throw new WireError(`messages nested deeper than ${MAX_DEPTH}`);
  let byNumber = fieldsByNumber.get(message);
  if (!byNumber) fieldsByNumber.set(message, byNumber = new Map(message.map((f) => [f.number, f])));
  const value: Properties = {};
  while (!reader.done) {
    const { field: number, wire } = reader.tag();
    const field = byNumber.get(number);
    if (field === undefined) {
      reader.skip(wire, number);
      continue;
    }
    const { type } = field;
    const expected = wireTypeOf(type);
    if (field.repeated && typeof type === "string" && expected !== WireType.LEN) {
      const items = (value[field.key] ??= []) as unknown[];
      if (wire === WireType.LEN) {
        const packed = reader.nested();
        while (!packed.done) items.push(readScalar(packed, type));
        continue;
      }
      checkWire(field, wire, expected);
      items.push(readScalar(reader, type));
      continue;
    }
    checkWire(field, wire, expected);
    const one = typeof type === "string"
      ? readScalar(reader, type)
      : readMessage(reader.nested(), type(), depth + 1);
    if (field.repeated) ((value[field.key] ??= []) as unknown[]).push(one);
    else value[field.key] = one;
  }
  return value;
}

function checkWire(field: Field, wire: number, expected: number): void {
  if (wire !== expected) {
    throw new WireError(`field ${field.key} has wire type ${wire}, expected ${expected}`);
  }
}

/** Serialises a model to ONNX protobuf bytes. */
export function encodeModel(model: ModelProto): Uint8Array {
  const writer = new ProtoWriter();
  writeMessage(writer, MODEL, model as unknown as Properties);
  return writer.finish();
}

/**
 * Parses ONNX protobuf bytes; byte fields are views of `bytes`, not copies.
 *
 * @throws {WireError} when the bytes are not a protobuf message of these shapes.
 */
export function decodeModel(bytes: Uint8Array): ModelProto {
  return readMessage(new ProtoReader(bytes), MODEL, 0) as ModelProto;
}

/** A float32 tensor of the given shape. */
export function floatTensor(name: string, dims: number[], data: Float32Array): TensorProto {
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return { name, dims, dataType: DataType.FLOAT, rawData: bytes.slice() };
}

/**
 * Nodes of a graph and of every subgraph its attributes hold (an `If`'s branches), as
 * onnxruntime loads them. Iterative, so a deeply nested graph cannot exhaust the stack.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { AttributeType, countNodes } from "./proto.ts";
 * const branch = { node: [{ opType: "Identity", input: ["x"], output: ["y"] }] };
 * const graph = {
 *   node: [{
 *     opType: "If",
 *     input: ["c"],
 *     output: ["y"],
 *     attribute: [{ name: "then_branch", type: AttributeType.GRAPH, g: branch }],
 *   }],
 * };
 * assert.equal(countNodes(graph), 2);
 * ```
 */
export function countNodes(graph: GraphProto): number {
  let count = 0;
  const pending: GraphProto[] = [graph];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    for (const node of next.node ?? []) {
      count++;
      for (const attribute of node.attribute ?? []) {
        if (attribute.g !== undefined) pending.push(attribute.g);
      }
    }
  }
  return count;
}
