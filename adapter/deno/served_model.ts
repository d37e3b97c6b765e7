/**
 * The model a server serves, as files of its playground (`model/NAME` byte for byte what the
 * server loaded, and `model/NAME.meta.json`), plus the `<meta>` tag that tells the page to open
 * them instead of its example.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { servedModelFiles } from "./served_model.ts";
 * const served = servedModelFiles({
 *   onnx: new Uint8Array([8, 8]),
 *   sidecar: "{}",
 *   onnxName: "models/loans.onnx",
 *   sidecarName: "models/loans.onnx.meta.json",
 * });
 * assert.deepEqual([...served.files.keys()], ["model/loans.onnx", "model/loans.onnx.meta.json"]);
 * assert.match(served.page("<head></head>"), /content="model\/loans\.onnx"/);
 * ```
 *
 * @module
 */

import type { AnyBundleFiles } from "../../core/pt/mod.ts";

/** The `<meta name>` the page reads the served model's address from (relative to the page). */
export const SERVED_MODEL_META = "petri-serve-model";

/** The served model's files by their path below the playground, and the page's rewrite. */
export interface ServedModelFiles {
  /** `model/NAME` → its bytes, `model/NAME.meta.json` → the sidecar's text. */
  readonly files: ReadonlyMap<string, Uint8Array | string>;
  /** The playground's `index.html` with the tag naming the model added to its head. */
  page(html: string): string;
}

/** The playground's files for `bundle`, named after its model file (path or URL, no query). */
export function servedModelFiles(bundle: AnyBundleFiles): ServedModelFiles {
  const [path, bytes] = "pt" in bundle
    ? [bundle.ptName, bundle.pt]
    : [bundle.onnxName, bundle.onnx];
  const name = baseName(path, "pt" in bundle ? "model.pt" : "model.onnx");
  const href = `model/${encodeURIComponent(name)}`;
  const tag = `<meta name="${SERVED_MODEL_META}" content="${escapeAttribute(href)}">`;
  return {
    files: new Map<string, Uint8Array | string>([
      [`model/${name}`, bytes],
      [`model/${name}.meta.json`, bundle.sidecar],
    ]),
    // In the head; a page without one gets the tag after its doctype (a head's start tag is
    // optional in HTML).
    page: (html) =>
      html.includes("</head>")
        ? html.replace("</head>", `  ${tag}\n  </head>`)
        : html.replace(/^(\s*<!doctype[^>]*>)?/i, (doctype) => doctype + tag),
  };
}

/** The file name at the end of a path or URL; `fallback` when there is none. */
function baseName(path: string, fallback: string): string {
  let name = path.replace(/[?#].*$/, "");
  if (/^https?:\/\//i.test(path)) {
    try {
      name = decodeURIComponent(new URL(path).pathname);
    } catch {
      // Not a URL after all: the path's own last part.
    }
  }
  const last = name.split(/[\\/]/).pop() ?? "";
  return last === "" || last === "." || last === ".." ? fallback : last;
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}
