/**
 * The playground's files as `cli.ts serve` serves them at `/playground/`, with no build step:
 * the page and stylesheet from `web/`, the committed build (`web/build/mod.ts`), ONNX
 * Runtime's `.wasm` files from the `onnxruntime-web` package, and the example bundle. Every file
 * is found through the module graph, so this works from a clone and from JSR alike; the `.wasm`
 * files are streamed from disk because Deno 2.9's `bytes` imports are still unstable.
 *
 * @module
 */

import { PLAYGROUND_SCRIPTS, PLAYGROUND_WASM } from "../../web/build/mod.ts";
import { EXAMPLE_BUNDLE_URL } from "./bundle_files.ts";

/** A file's body: text, or a byte stream read on request. */
export type FileBody = string | ReadableStream<Uint8Array>;

/**
 * Every file of the playground by its path below `/playground/`; each loader runs per request.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PLAYGROUND_FILES } from "./playground_site.ts";
 * import { PLAYGROUND_WASM } from "../../web/build/mod.ts";
 * for (const hashed of PLAYGROUND_WASM.keys()) {
 *   assert.ok([...PLAYGROUND_FILES.keys()].includes(`ort/${hashed}`));
 * }
 * ```
 */
export const PLAYGROUND_FILES: ReadonlyMap<string, () => Promise<FileBody>> = new Map<
  string,
  () => Promise<FileBody>
>([
  [
    "index.html",
    async () => (await import("../../web/index.html", { with: { type: "text" } })).default,
  ],
  [
    "style.css",
    async () => (await import("../../web/style.css", { with: { type: "text" } })).default,
  ],
  ...PLAYGROUND_SCRIPTS,
  ...[...PLAYGROUND_WASM].map(([hashed, file]): [string, () => Promise<FileBody>] => [
    `ort/${hashed}`,
    () => readUrl(ORT_WASM_URLS[file]!()),
  ]),
  ["examples/credit_approval_coloured.onnx", () => readUrl(EXAMPLE_BUNDLE_URL.href)],
  [
    "examples/credit_approval_coloured.onnx.meta.json",
    async () =>
      (await import(
        "../../examples/credit_approval_coloured/credit_approval_coloured.onnx.meta.json",
        { with: { type: "text" } }
      )).default,
  ],
]);

/**
 * The URL of the file each path is read from (a `file:` URL in a clone, whose time is the
 * path's `Last-Modified`; another URL from JSR). The bundle's scripts are stored as NAME.txt
 * (`web/build/mod.ts`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PLAYGROUND_FILES, PLAYGROUND_SOURCES } from "./playground_site.ts";
 * assert.deepEqual([...PLAYGROUND_SOURCES.keys()], [...PLAYGROUND_FILES.keys()]);
 * assert.match(PLAYGROUND_SOURCES.get("index.html")!(), /\/web\/index\.html$/);
 * ```
 */
export const PLAYGROUND_SOURCES: ReadonlyMap<string, () => string> = new Map<string, () => string>([
  ["index.html", () => new URL("../../web/index.html", import.meta.url).href],
  ["style.css", () => new URL("../../web/style.css", import.meta.url).href],
  ...[...PLAYGROUND_SCRIPTS.keys()].map((name): [string, () => string] => [
    name,
    () => new URL(`../../web/build/${name}.txt`, import.meta.url).href,
  ]),
  ...[...PLAYGROUND_WASM].map(([hashed, file]): [string, () => string] => [
    `ort/${hashed}`,
    () => ORT_WASM_URLS[file]!(),
  ]),
  ["examples/credit_approval_coloured.onnx", () => EXAMPLE_BUNDLE_URL.href],
  [
    "examples/credit_approval_coloured.onnx.meta.json",
    () => `${EXAMPLE_BUNDLE_URL.href}.meta.json`,
  ],
]);

/** Where each of ORT's `.wasm` files is (literal specifiers, so that publishing rewrites them). */
const ORT_WASM_URLS: Readonly<Record<string, () => string>> = {
  "ort-wasm-simd-threaded.wasm": () =>
    import.meta.resolve("onnxruntime-web/ort-wasm-simd-threaded.wasm"),
  "ort-wasm-simd-threaded.asyncify.wasm": () =>
    import.meta.resolve("onnxruntime-web/ort-wasm-simd-threaded.asyncify.wasm"),
};

/** Streams a `file:` URL from disk, or fetches any other URL. */
async function readUrl(href: string): Promise<ReadableStream<Uint8Array>> {
  const url = new URL(href);
  if (url.protocol === "file:") return (await Deno.open(url, { read: true })).readable;
  const response = await fetch(url);
  if (!response.ok || response.body === null) {
    await response.body?.cancel();
    throw new Error(`Cannot fetch ${href}: HTTP ${response.status}`);
  }
  return response.body;
}
