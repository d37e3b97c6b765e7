/**
 * The ONNX codec (`core/onnx/proto.ts` on `core/onnx/wire.ts`): it writes the bytes
 * protobufjs's generated ONNX code wrote (the committed bundles were written by it, and decode
 * and re-encode to themselves), reads what protobuf allows (packed or unpacked numbers, unknown
 * fields), and refuses broken or hostile bytes with a `WireError` instead of reading past the
 * end, looping or recursing without bound.
 *
 * @module
 */

import assert from "node:assert/strict";
import { decodeModel, encodeModel, type ModelProto } from "../../../core/onnx/proto.ts";
import { ProtoReader, ProtoWriter, WireError, WireType } from "../../../core/onnx/wire.ts";

const ROOT = new URL("../../../", import.meta.url);

// Written by onnx-proto (protobufjs 6) before the codec was ours; see git history.
const PROTOBUFJS_WRITTEN = [
  "examples/rest_serving/rest_serving.onnx",
  "examples/credit_approval_coloured/credit_approval_coloured.onnx",
  "tests/fixtures/pre_place_values/credit_approval_coloured.onnx",
];

Deno.test("encodeModel(decodeModel(bytes)) gives back the bytes protobufjs wrote", async () => {
  for (const path of PROTOBUFJS_WRITTEN) {
    const bytes = await Deno.readFile(new URL(path, ROOT));
    const proto = decodeModel(bytes);
    assert.ok(proto.graph?.node?.some((n) => n.opType === "If"), path);
    assert.deepEqual(encodeModel(proto), bytes, path);
  }
});

Deno.test("encodeModel() writes fields in protobufjs's order, numbers packed, empty strings kept", () => {
  const bytes = encodeModel({
    opsetImport: [{ domain: "", version: 17 }],
    irVersion: 8,
    graph: { name: "g", node: [{ opType: "X", input: ["a"], output: ["b"] }] },
  });
  assert.deepEqual([...bytes], [
    ...[8, 8], // irVersion (1)
    ...[58, 14], // graph (7)
    ...[10, 9, 10, 1, 97, 18, 1, 98, 34, 1, 88], // node: input, output, opType
    ...[18, 1, 103], // name
    ...[66, 4, 10, 0, 16, 17], // opsetImport (8): domain "" is written
  ]);
  const tensor = encodeModel({ graph: { initializer: [{ dims: [2, 300], dataType: 1 }] } });
  // dims (1) packed: tag 10, 3 bytes: 2, then 300 as the varint [172, 2].
  assert.deepEqual([...tensor], [58, 9, 42, 7, 10, 3, 2, 172, 2, 16, 1]);
});

Deno.test("int64, int32 and float values survive a round trip, negative ones in ten bytes", () => {
  const ints = [0, 1, -1, 127, 128, 2 ** 31, -(2 ** 31), 2 ** 40, -(2 ** 40), 2 ** 53 - 1];
  const model: ModelProto = {
    irVersion: 2 ** 33,
    graph: {
      node: [{
        opType: "X",
        input: [],
        output: [],
        attribute: [
          { name: "ints", type: 7, ints },
          { name: "i", type: 2, i: -5 },
          { name: "f", type: 1, f: -0.25 },
          { name: "neg", type: -3 },
        ],
      }],
    },
  };
  const decoded = decodeModel(encodeModel(model));
  assert.equal(decoded.irVersion, 2 ** 33);
  // Empty repeated fields are not written, so they read back absent (as with protobufjs).
  assert.deepEqual(decoded.graph?.node?.[0], {
    opType: "X",
    attribute: model.graph!.node![0]!.attribute,
  });
  const writer = new ProtoWriter();
  writer.int64(-1);
  assert.deepEqual([...writer.finish()], [255, 255, 255, 255, 255, 255, 255, 255, 255, 1]);
});

Deno.test("decodeModel() reads unpacked numbers and skips fields it does not know", () => {
  const writer = new ProtoWriter();
  writer.tag(7, WireType.LEN); // graph
  writer.nested(() => {
    writer.tag(5, WireType.LEN); // initializer
    writer.nested(() => {
      writer.tag(1, WireType.VARINT); // dims, unpacked
      writer.int64(3);
      writer.tag(12, WireType.LEN); // doc_string: not read
      writer.string("about");
      writer.tag(1, WireType.VARINT);
      writer.int64(4);
      writer.tag(99, WireType.I64); // unknown, fixed64
      writer.float(0);
      writer.float(0);
      writer.tag(98, WireType.I32); // unknown, fixed32
      writer.float(1);
    });
  });
  writer.tag(1, WireType.VARINT);
  writer.int64(8);
  assert.deepEqual(decodeModel(writer.finish()), {
    graph: { initializer: [{ dims: [3, 4] }] },
    irVersion: 8,
  });
});

Deno.test("decodeModel() refuses every truncation of a real bundle, or reads it without error", async () => {
  const bytes = await Deno.readFile(new URL(PROTOBUFJS_WRITTEN[0]!, ROOT));
  let refused = 0;
  for (let length = 0; length < bytes.length; length++) {
    try {
      decodeModel(bytes.subarray(0, length));
    } catch (error) {
      assert.ok(error instanceof WireError, `${length}: ${error}`);
      refused++;
    }
  }
  // The graph is one field that spans almost the whole file: nearly every cut lands inside it.
  assert.ok(refused > bytes.length * 0.9, `${refused} of ${bytes.length} refused`);
});

Deno.test("decodeModel() names what is wrong with broken bytes", () => {
  const cases: [string, number[], RegExp][] = [
    ["a length past the end", [58, 50, 1], /a field of 50 bytes at byte 1 runs past its message/],
    ["a varint cut short", [8, 128], /a varint at byte 1 is cut short/],
    ["an 11-byte varint", [8, ...Array(10).fill(255), 1], /longer than 10 bytes/],
    ["field number 0", [0, 1], /invalid field tag at byte 0/],
    ["a group", [243, 1, 244, 1], /field 30 has wire type 3, which is not read/],
    [
      "a known field with the wrong wire type",
      [13, 0, 0, 0, 0],
      /field irVersion has wire type 5, expected 0/,
    ],
    ["a float cut short", [58, 6, 10, 4, 42, 2, 21, 0], /4 bytes wanted at byte 7/],
  ];
  for (const [what, bytes, message] of cases) {
    assert.throws(() => decodeModel(new Uint8Array(bytes)), { name: "WireError", message }, what);
  }
});

Deno.test("decodeModel() refuses graphs nested deeper than 64 messages", () => {
  // model -> graph -> node -> attribute -> graph -> node -> ... built from the inside out.
  const nest = (levels: number) => {
    let inner: Uint8Array = new Uint8Array(0);
    for (let level = 0; level < levels; level++) {
      const writer = new ProtoWriter();
      writer.tag(5, WireType.LEN); // node.attribute
      writer.nested(() => {
        writer.tag(6, WireType.LEN); // attribute.g
        writer.nested(() => {
          writer.tag(1, WireType.LEN); // graph.node
          writer.bytes(inner);
        });
      });
      inner = writer.finish();
    }
    const writer = new ProtoWriter();
    writer.tag(7, WireType.LEN);
    writer.nested(() => {
      writer.tag(1, WireType.LEN);
      writer.bytes(inner);
    });
    return writer.finish();
  };
  assert.ok(decodeModel(nest(20)).graph);
  assert.throws(() => decodeModel(nest(30)), {
    name: "WireError",
    message: "messages nested deeper than 64",
  });
});

Deno.test("ProtoWriter.nested() moves long content up for a multi-byte length", () => {
  const writer = new ProtoWriter();
  const payload = new Uint8Array(70_000).map((_, i) => i % 251);
  writer.tag(9, WireType.LEN);
  writer.nested(() => {
    for (let i = 0; i < payload.length; i += 1000) {
      writer.tag(1, WireType.LEN);
      writer.bytes(payload.subarray(i, i + 1000));
    }
  });
  const reader = new ProtoReader(writer.finish());
  assert.deepEqual(reader.tag(), { field: 9, wire: WireType.LEN });
  const inner = reader.nested();
  const read: number[] = [];
  while (!inner.done) {
    inner.tag();
    read.push(...inner.bytes());
  }
  assert.equal(reader.done, true);
  assert.deepEqual(new Uint8Array(read), payload);
});
