/**
 * The name a served model goes by on every face: `scenario_name`, else the model file's stem.
 *
 * @module
 */

/** The extensions {@link fileStem} removes, longest first. */
const MODEL_EXTENSIONS = [".model.json", ".onnx", ".json", ".pt"];

/**
 * `scenarioName` when it is a non-empty string, else {@link fileStem} of `fileName`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { modelName } from "./model_name.ts";
 * assert.equal(modelName("loans", "models/big.onnx"), "loans");
 * assert.equal(modelName("", "C:\\models\\credit.pt"), "credit");
 * ```
 */
export function modelName(scenarioName: string | null | undefined, fileName: string): string {
  return scenarioName ? scenarioName : fileStem(fileName);
}

/**
 * A model file's name without its directories, query string and model extension (`.onnx`,
 * `.pt`, `.json`, `.model.json`); `model` when nothing is left.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fileStem } from "./model_name.ts";
 * assert.equal(fileStem("https://bucket.example/m/big%20net.onnx?X-Sig=abc"), "big net");
 * assert.equal(fileStem("credit.model.json"), "credit");
 * assert.equal(fileStem(".onnx"), "model");
 * ```
 */
export function fileStem(fileName: string): string {
  let path = fileName;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) path = path.replace(/[?#].*$/, "");
  let base = path.slice(Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\")) + 1);
  try {
    if (path !== fileName) base = decodeURIComponent(base);
  } catch {
    // A stray % stays as written.
  }
  const extension = MODEL_EXTENSIONS.find((e) => base.toLowerCase().endsWith(e));
  const stem = extension ? base.slice(0, -extension.length) : base;
  return stem === "" ? "model" : stem;
}
