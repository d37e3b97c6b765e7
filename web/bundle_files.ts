/**
 * Bundles in the browser: pairing the files a user picks or drops and fetching a bundle of
 * either kind from a URL, each failure a {@link BundleError} in plain words. Web-standard APIs
 * only, so the page and the Deno tests share this module.
 *
 * @module
 */

import { BundleError, type BundleFiles } from "../core/bundle/mod.ts";
import type { PtBundleFiles } from "../core/pt/mod.ts";

/** The suffix that turns a bundle's `.onnx` name into its sidecar's. */
export const SIDECAR_SUFFIX = ".meta.json";

/** A file as the page reads it: its name (no directory) and its bytes. */
export interface PickedFile {
  readonly name: string;
  readonly bytes: Uint8Array;
}

/**
 * Finds the one bundle among `files`: one `.onnx` file and the sidecar named after it. Other
 * files are ignored.
 *
 * @throws {BundleError} when there is no `.onnx` file, several, no sidecar for it, or the
 * sidecar is not UTF-8 text.
 *
 * @example
 * ```ts
 * import { pairBundleFiles } from "./bundle_files.ts";
 * try {
 *   pairBundleFiles([{ name: "m.onnx", bytes: new Uint8Array() }]);
 * } catch (error) {
 *   (error as Error).message;
 *   // "Cannot load bundle: m.onnx.meta.json is missing (pick it together with m.onnx)"
 * }
 * ```
 */
export function pairBundleFiles(files: readonly PickedFile[]): BundleFiles {
  const models = files.filter((f) => f.name.endsWith(".onnx"));
  const sidecars = files.filter((f) => f.name.endsWith(".onnx" + SIDECAR_SUFFIX));
  if (models.length > 1) {
    const names = models.map((f) => f.name).sort().join(", ");
    throw new BundleError(`pick one bundle at a time (got ${names})`);
  }
  const model = models[0];
  if (model === undefined) {
    const sidecar = sidecars[0];
    if (sidecar !== undefined) {
      const onnxName = sidecar.name.slice(0, -SIDECAR_SUFFIX.length);
      throw new BundleError(`${onnxName} is missing (pick it together with ${sidecar.name})`);
    }
    const names = files.map((f) => f.name).sort().join(", ");
    throw new BundleError(
      `no .onnx file among ${names || "the files"} ` +
        "(a bundle is NAME.onnx and NAME.onnx.meta.json, picked together)",
    );
  }
  const sidecarName = model.name + SIDECAR_SUFFIX;
  const sidecar = sidecars.find((f) => f.name === sidecarName);
  if (sidecar === undefined) {
    const other = sidecars[0] ? `; ${sidecars[0].name} belongs to another bundle` : "";
    throw new BundleError(
      `${sidecarName} is missing (pick it together with ${model.name})${other}`,
    );
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(sidecar.bytes);
  } catch {
    throw new BundleError(`${sidecarName} is not a text file (expected JSON)`);
  }
  return { onnx: model.bytes, sidecar: text, onnxName: model.name, sidecarName };
}

/**
 * Finds the one bundle of either kind among `files`: a PETRA `NAME.pt` with its
 * `NAME.pt.meta.json`, or else (through {@link pairBundleFiles}) a `.onnx` pair.
 *
 * @throws {BundleError} when there is no bundle, several, or the sidecar is missing.
 *
 * @example
 * ```ts
 * import { pairPickedBundle } from "./bundle_files.ts";
 * const files = pairPickedBundle([
 *   { name: "m.pt", bytes: new Uint8Array([80, 75]) },
 *   { name: "m.pt.meta.json", bytes: new TextEncoder().encode("{}") },
 * ]);
 * "pt" in files; // true
 * ```
 */
export function pairPickedBundle(files: readonly PickedFile[]): BundleFiles | PtBundleFiles {
  const pts = files.filter((f) => f.name.endsWith(".pt"));
  if (pts.length === 0) return pairBundleFiles(files);
  const onnx = files.filter((f) => f.name.endsWith(".onnx"));
  if (pts.length + onnx.length > 1) {
    const names = [...pts, ...onnx].map((f) => f.name).sort().join(", ");
    throw new BundleError(`pick one bundle at a time (got ${names})`);
  }
  const pt = pts[0]!;
  const sidecarName = pt.name + SIDECAR_SUFFIX;
  const sidecar = files.find((f) => f.name === sidecarName);
  if (sidecar === undefined) {
    throw new BundleError(`${sidecarName} is missing (pick it together with ${pt.name})`);
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(sidecar.bytes);
  } catch {
    throw new BundleError(`${sidecarName} is not a text file (expected JSON)`);
  }
  return { pt: pt.bytes, sidecar: text, ptName: pt.name, sidecarName };
}

/** Reads picked or dropped `File`s. */
export async function readPickedFiles(files: Iterable<File>): Promise<PickedFile[]> {
  return await Promise.all(
    [...files].map(async (file) => ({
      name: file.name,
      bytes: new Uint8Array(await file.arrayBuffer()),
    })),
  );
}

/**
 * Fetches the bundle whose model file is at `modelUrl` (its sidecar beside it): PETRA's pair
 * when the name ends in `.pt`, else petri-serve's `.onnx` pair.
 *
 * @throws {BundleError} naming the file that could not be fetched.
 *
 * @example
 * ```ts
 * import { fetchBundle } from "./bundle_files.ts";
 * declare const base: URL;
 * const files = await fetchBundle(new URL("examples/credit.onnx", base));
 * "onnx" in files && files.onnxName; // "credit.onnx"
 * ```
 */
export async function fetchBundle(modelUrl: URL): Promise<BundleFiles | PtBundleFiles> {
  const sidecarUrl = new URL(modelUrl.href + SIDECAR_SUFFIX);
  const modelName = decodeURIComponent(modelUrl.pathname.split("/").pop() ?? "") ||
    "model.onnx";
  const sidecarName = modelName + SIDECAR_SUFFIX;
  const get = async (url: URL, name: string): Promise<Response> => {
    let response: Response;
    try {
      response = await fetch(url);
    } catch (error) {
      throw new BundleError(`${name} cannot be fetched (${messageOf(error)})`);
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new BundleError(`${name} cannot be fetched (HTTP ${response.status})`);
    }
    return response;
  };
  const [bytes, sidecar] = await Promise.all([
    get(modelUrl, modelName).then(async (r) => new Uint8Array(await r.arrayBuffer())),
    get(sidecarUrl, sidecarName).then((r) => r.text()),
  ]);
  return modelName.endsWith(".pt")
    ? { pt: bytes, sidecar, ptName: modelName, sidecarName }
    : { onnx: bytes, sidecar, onnxName: modelName, sidecarName };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
