/**
 * Bundle files on disk or behind a URL: finding a bundle's model file, reading the pair into a
 * {@link Model}, writing a compiled pair. A bundle is petri-serve's (`NAME.onnx` + sidecar),
 * PETRA's (`NAME.pt` + sidecar, compiled in memory) or a model description (`NAME.json`). The
 * model file's first bytes are checked first, so an event log given as a bundle is named as
 * what it is; every failure is a {@link BundleError} naming the path at fault.
 *
 * @module
 */

import {
  BundleError,
  compileBundle,
  type LoadOptions,
  messageOf,
  type Model,
} from "../../core/bundle/mod.ts";
import { concatBytes, describeKind, type FileKind, sniffFile } from "../../core/bytes/mod.ts";
import { DescriptionFileError, readDescriptionFile } from "../../core/net/mod.ts";
import type { OrtModule } from "../../core/runtime/mod.ts";
import { type AnyBundleFiles, openBundle, type PtBundleFiles } from "../../core/pt/mod.ts";
import { FETCH_TIMEOUT_MS, HttpFile, type HttpProblem } from "./http_file.ts";

/** The embedded example bundle: a `file:` URL in a checkout, an `https:` URL from JSR. */
export const EXAMPLE_BUNDLE_URL: URL = new URL(
  "../../examples/credit_approval_coloured/credit_approval_coloured.onnx",
  import.meta.url,
);

/** The suffix that turns a bundle's `.onnx` path into its sidecar's. */
export const SIDECAR_SUFFIX = ".meta.json";

/** The kinds of bundle: a compiled `.onnx`, PETRA's `.pt`, or a model description `.json`. */
export type BundleKind = "onnx" | "pt" | "description";

/** The largest bundle file read from a URL (1 GiB); larger answers are refused unread. */
export const MAX_FETCHED_BYTES = 1 << 30;

/** How long fetching one bundle file from a URL may take, in ms. */
export { FETCH_TIMEOUT_MS };

/**
 * What a bundle argument or `PETRI_SERVE_BUNDLE` names: an `http(s):` URL as a {@link URL}
 * (read with `fetch`), anything else as a path.
 *
 * @example
 * ```ts
 * import { bundleLocation } from "./bundle_files.ts";
 * bundleLocation("https://example.com/m.onnx") instanceof URL; // true
 * bundleLocation("models/m.onnx"); // "models/m.onnx"
 * ```
 */
export function bundleLocation(text: string): string | URL {
  if (!/^https?:\/\//i.test(text)) return text;
  try {
    return new URL(text);
  } catch {
    throw new BundleError(`'${text}' is not a valid URL`);
  }
}

/** Which kind of bundle a model file is, by its name. */
export function bundleKind(path: string | URL): BundleKind {
  const name = (path instanceof URL ? path.pathname : path).toLowerCase();
  return name.endsWith(".pt") ? "pt" : name.endsWith(".json") ? "description" : "onnx";
}

/**
 * The model file a bundle path names: the path itself when it is a file, or the one `*.onnx`
 * or `*.pt` file of a directory.
 *
 * @throws {BundleError} when the path does not exist, or a directory holds no bundle or several.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveBundlePath } from "./bundle_files.ts";
 * assert.equal(
 *   await resolveBundlePath("examples/rest_serving"),
 *   "examples/rest_serving/rest_serving.onnx",
 * );
 * await assert.rejects(resolveBundlePath("examples/missing"), {
 *   message: "Cannot load bundle: examples/missing does not exist",
 * });
 * ```
 */
export async function resolveBundlePath(path: string): Promise<string> {
  for (const extension of [".onnx", ".pt"]) {
    if (path.endsWith(extension + SIDECAR_SUFFIX)) {
      throw new BundleError(`${path} is a sidecar; pass the ${extension} file beside it`);
    }
  }
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw new BundleError(`${path} does not exist`);
    throw new BundleError(`cannot read ${path} (${messageOf(error)})`);
  }
  if (!info.isDirectory) return path;
  const found: string[] = [];
  const others: string[] = [];
  try {
    for await (const entry of Deno.readDir(path)) {
      const model = entry.name.endsWith(".onnx") || entry.name.endsWith(".pt");
      if (model && !entry.isDirectory) found.push(entry.name);
      else if (others.length < MAX_LISTED) others.push(entry.name + (entry.isDirectory ? "/" : ""));
    }
  } catch (error) {
    throw new BundleError(`cannot read directory ${path} (${messageOf(error)})`);
  }
  found.sort();
  if (found.length === 0) {
    others.sort();
    const held = others.length === 0
      ? "it is empty"
      : `it holds ${others.slice(0, 5).join(", ")}${others.length > 5 ? ", …" : ""}`;
    throw new BundleError(
      `directory ${path} holds no bundle (no .onnx or .pt file; ${held}); ` +
        "a model description (.json) is given as the file itself",
    );
  }
  if (found.length > 1) {
    throw new BundleError(
      `directory ${path} holds ${found.length} bundles (${found.join(", ")}); ` +
        "pass one .onnx or .pt file",
    );
  }
  return joinPath(path, found[0]!);
}

/**
 * Reads a bundle (a model file, a directory holding one bundle, or a URL of a file) and loads it;
 * a `.pt` is read without running anything from the file, then compiled in memory.
 *
 * @throws {BundleError} naming the missing, unreadable or invalid file.
 *
 * @example
 * ```ts
 * import * as ort from "onnxruntime-web";
 * import { EXAMPLE_BUNDLE_URL, readBundle } from "./bundle_files.ts";
 * import assert from "node:assert/strict";
 * ort.env.wasm.numThreads = 1;
 * await using model = await readBundle(ort, EXAMPLE_BUNDLE_URL);
 * assert.equal(model.sidecar.scenario_name, "credit_approval_coloured");
 * ```
 */
export async function readBundle(
  ort: OrtModule,
  path: string | URL,
  options: LoadOptions = {},
): Promise<Model> {
  return await openBundle(ort, await readBundleFiles(path), options);
}

/**
 * Reads a bundle's two files without loading them: what {@link readBundle} loads, and what
 * `serve` hands the playground so that it opens the model being served.
 *
 * @throws {BundleError} naming the missing, unreadable or wrong file.
 */
export async function readBundleFiles(path: string | URL): Promise<AnyBundleFiles> {
  let modelName: string;
  let sidecarName: string;
  let read: (name: string) => Promise<Uint8Array>;
  if (path instanceof URL && path.protocol !== "file:") {
    modelName = path.href;
    const sidecar = new URL(path);
    // Beside the model file, so that a query string (a signed URL) stays at the end.
    sidecar.pathname += SIDECAR_SUFFIX;
    sidecarName = sidecar.href;
    read = fetchFile;
  } else {
    modelName = await resolveBundlePath(path instanceof URL ? fileUrlPath(path) : path);
    sidecarName = modelName + SIDECAR_SUFFIX;
    read = readLocalFile;
  }
  // A URL's kind is its path's (a signed URL's query string comes after the name).
  const kind = bundleKind(path instanceof URL && path.protocol !== "file:" ? path : modelName);
  const bytes = await read(modelName);
  // What the file holds is checked before its sidecar is looked for.
  refuseWrongFile(modelName, bytes, kind);
  if (kind === "description") return await compiledInMemory(modelName, bytes);
  const sidecar = sidecarText(sidecarName, await read(sidecarName));
  return kind === "pt"
    ? { pt: bytes, sidecar, ptName: modelName, sidecarName }
    : { onnx: bytes, sidecar, onnxName: modelName, sidecarName };
}

/** Directory entries named in a message about a directory without a bundle. */
const MAX_LISTED = 64;

/** Refuses a model file whose first bytes show it is something else than its `kind`. */
function refuseWrongFile(name: string, bytes: Uint8Array, kind: BundleKind): void {
  const found = sniffFile(bytes);
  if (bytes.length === 0) throw new BundleError(`${name} is empty`);
  const expected: Readonly<Record<BundleKind, readonly FileKind[]>> = {
    onnx: ["onnx", "binary"],
    pt: ["zip", "binary"],
    description: ["json"],
  };
  if (expected[kind].includes(found)) return;
  const wanted = kind === "onnx"
    ? "an ONNX model"
    : kind === "pt"
    ? "a PETRA .pt file (a zip archive)"
    : "a model description (JSON)";
  const hint = found === "zip" && kind === "onnx"
    ? "; a PETRA bundle is read by its name: name it MODEL.pt, its sidecar MODEL.pt.meta.json"
    : found === "json" && kind !== "description"
    ? "; a model description is read from a file named .json"
    : found === "onnx" && kind !== "onnx"
    ? "; a compiled bundle is read from a file named .onnx"
    : ["csv", "xml", "gzip", "utf16"].includes(found)
    ? "; an event log is scored with batch BUNDLE --traces LOG"
    : "";
  throw new BundleError(`${name} is ${describeKind(found)}, not ${wanted}${hint}`);
}

/** A model description compiled to a bundle in memory: its two files. */
async function compiledInMemory(name: string, bytes: Uint8Array): Promise<AnyBundleFiles> {
  let description;
  try {
    description = readDescriptionFile(bytes, name);
  } catch (error) {
    if (error instanceof DescriptionFileError) throw new BundleError(error.message);
    throw error;
  }
  const compiled = await compileBundle(description);
  return {
    onnx: compiled.onnx,
    sidecar: compiled.sidecar,
    onnxName: `${name} (compiled in memory)`,
    sidecarName: `${name} (compiled in memory)`,
    modelFile: name,
  };
}

/** A sidecar's text; an HTML page or a file that is not JSON is refused naming what it is. */
function sidecarText(name: string, bytes: Uint8Array): string {
  const found = sniffFile(bytes);
  if (bytes.length > 0 && found !== "json") {
    throw new BundleError(`${name} is ${describeKind(found)}, not a sidecar (JSON)`);
  }
  return new TextDecoder().decode(bytes);
}

/**
 * Reads a PETRA bundle's two files from disk: `path` (the `.pt` file) and its sidecar.
 *
 * @throws {BundleError} naming the missing or unreadable file.
 */
export async function readPtFiles(path: string): Promise<PtBundleFiles> {
  const sidecarName = path + SIDECAR_SUFFIX;
  const bytes = await readLocalFile(path);
  refuseWrongFile(path, bytes, "pt");
  const sidecar = sidecarText(sidecarName, await readLocalFile(sidecarName));
  return { pt: bytes, sidecar, ptName: path, sidecarName };
}

/** Where {@link writeBundle} put the two files. */
export interface WrittenBundle {
  /** The `.onnx` file written. */
  readonly onnxPath: string;
  /** The sidecar written beside it. */
  readonly sidecarPath: string;
}

/**
 * Writes a compiled bundle: `outPath` (the `.onnx` file) and `outPath + ".meta.json"`,
 * creating missing parent directories.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compileBundle } from "../../core/bundle/mod.ts";
 * import { parseModelDescription } from "../../core/net/mod.ts";
 * import { writeBundle } from "./bundle_files.ts";
 * const petriModel = parseModelDescription(JSON.parse(
 *   await Deno.readTextFile("examples/rest_serving/rest_serving.model.json"),
 * ));
 * const dir = await Deno.makeTempDir();
 * await writeBundle(`${dir}/model.onnx`, await compileBundle(petriModel));
 * assert.ok((await Deno.stat(`${dir}/model.onnx.meta.json`)).isFile);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function writeBundle(
  outPath: string,
  bundle: { readonly onnx: Uint8Array; readonly sidecar: string },
): Promise<WrittenBundle> {
  const sidecarPath = outPath + SIDECAR_SUFFIX;
  const slash = Math.max(outPath.lastIndexOf("/"), outPath.lastIndexOf("\\"));
  if (slash > 0) await Deno.mkdir(outPath.slice(0, slash), { recursive: true });
  await Deno.writeFile(outPath, bundle.onnx);
  await Deno.writeTextFile(sidecarPath, bundle.sidecar);
  return { onnxPath: outPath, sidecarPath };
}

async function readLocalFile(path: string): Promise<Uint8Array> {
  try {
    return await Deno.readFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw new BundleError(`${path} is missing`);
    throw new BundleError(`cannot read ${path} (${messageOf(error)})`);
  }
}

async function fetchFile(url: string): Promise<Uint8Array> {
  const file = new HttpFile(new URL(url), {
    expected: "a bundle file",
    error: (problem) => new BundleError(fetchProblem(url, problem)),
  });
  const response = await file.get();
  const declared = file.lengthOf(response);
  if (declared !== undefined && declared > MAX_FETCHED_BYTES) {
    await response.body?.cancel();
    throw new BundleError(`${url} is ${declared} bytes, over the limit of ${MAX_FETCHED_BYTES}`);
  }
  const chunks: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of file.chunks(response)) {
    length += chunk.length;
    if (length > MAX_FETCHED_BYTES) {
      throw new BundleError(`${url} is over the limit of ${MAX_FETCHED_BYTES} bytes`);
    }
    chunks.push(chunk);
  }
  return concatBytes(chunks, length);
}

/** A failed fetch of a bundle file, worded as bundle errors are. */
function fetchProblem(url: string, problem: HttpProblem): string {
  if (problem.kind === "html") {
    return `${url} answered an HTML page (HTTP ${problem.status}), not a bundle file`;
  }
  if (problem.kind === "failed") return `cannot fetch ${url} (${problem.detail})`;
  return problem.status === 404
    ? `${url} is missing`
    : `cannot fetch ${url} (HTTP ${problem.status})`;
}

function joinPath(dir: string, name: string): string {
  return /[\\/]$/.test(dir) ? dir + name : `${dir}/${name}`;
}

function fileUrlPath(url: URL): string {
  const path = decodeURIComponent(url.pathname);
  // file:///C:/x -> C:/x on Windows.
  return /^\/[A-Za-z]:\//.test(path) ? path.slice(1) : path;
}
