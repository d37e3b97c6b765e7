import assert from "node:assert/strict";
import { concatBytes, describeKind, sniffFile } from "../../../core/bytes/mod.ts";

const ROOT = new URL("../../../", import.meta.url);
const text = (s: string) => new TextEncoder().encode(s);

Deno.test("concatBytes joins chunks in order, and hands a lone chunk back as it is", () => {
  assert.deepEqual([...concatBytes([text("ab"), new Uint8Array(), text("c")])], [...text("abc")]);
  const lone = text("x");
  assert.equal(concatBytes([lone]), lone);
  assert.equal(concatBytes([]).byteLength, 0);
});

Deno.test("sniffFile names what the repository's own files are", async () => {
  const kinds: [string, string][] = [
    ["examples/rest_serving/rest_serving.onnx", "onnx"],
    ["examples/rest_serving/applications.xes", "xml"],
    ["examples/rest_serving/applications.json", "json"],
    ["examples/rest_serving/applications.csv", "csv"],
    ["web/index.html", "html"],
    ["LICENSE", "text"],
  ];
  for (const [path, kind] of kinds) {
    const bytes = await Deno.readFile(new URL(path, ROOT));
    assert.equal(sniffFile(bytes), kind, path);
  }
});

Deno.test("sniffFile tells compressed, UTF-16 and binary bytes from text", () => {
  assert.equal(sniffFile(Uint8Array.of(0x1f, 0x8b, 8, 0)), "gzip");
  assert.equal(sniffFile(Uint8Array.of(0x50, 0x4b, 3, 4)), "zip");
  assert.equal(sniffFile(Uint8Array.of(0xff, 0xfe, 0x3c, 0)), "utf16");
  assert.equal(sniffFile(Uint8Array.of(0x3c, 0, 0x6c, 0)), "utf16");
  assert.equal(sniffFile(Uint8Array.of(0x80, 0x81, 0x82)), "binary", "not UTF-8");
  assert.equal(sniffFile(text("a\u0001b")), "binary", "a control character");
  // A multi-byte character cut at the sniffed prefix's end is still text.
  assert.equal(sniffFile(text("{" + "é".repeat(600))), "json");
  assert.equal(describeKind("zip"), "a zip archive (a PETRA .pt file is one)");
});
