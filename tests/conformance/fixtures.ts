/**
 * Where the recorded PETRA conformance data lives (`tests/fixtures/conformance/`), which of
 * its folders hold a recorded model (`hostile_pt/` holds only broken bundles), which score file
 * PETRA wrote for each trace file, and reading a recorded model's `model.json`.
 *
 * @example
 * ```ts
 * import { readConformanceDescription, RECORDED_MODELS, SCORE_FILES } from "./fixtures.ts";
 * for (const name of RECORDED_MODELS) {
 *   const description = await readConformanceDescription(name);
 *   for (const [traceFile, scoreFile] of SCORE_FILES) console.log(name, traceFile, scoreFile);
 * }
 * ```
 *
 * @module
 */

/** The recorded PETRA conformance data, one folder per model. */
export const CONFORMANCE: URL = new URL("../fixtures/conformance/", import.meta.url);

/** The folders of {@link CONFORMANCE} that hold a recorded model (`model.json`), sorted. */
export const RECORDED_MODELS: readonly string[] = [...Deno.readDirSync(CONFORMANCE)]
  .filter((entry) => entry.isDirectory && isFile(new URL(`${entry.name}/model.json`, CONFORMANCE)))
  .map((entry) => entry.name)
  .sort();

/**
 * Every recorded model's trace files, each with the file PETRA's `score` wrote for it:
 * `[traces.json, score.json]`, `[traces.csv, score_csv.json]`, `[traces.xes, score_xes.json]`.
 */
export const SCORE_FILES: readonly (readonly [traceFile: string, scoreFile: string])[] = [
  ["traces.json", "score.json"],
  ["traces.csv", "score_csv.json"],
  ["traces.xes", "score_xes.json"],
];

/**
 * Reads `conformance/NAME/model.json` (the model description PETRA exported).
 *
 * @example
 * ```ts
 * import { readConformanceDescription } from "./fixtures.ts";
 * (await readConformanceDescription("rest_serving")).format; // "petri-net-model/1"
 * ```
 */
export async function readConformanceDescription(name: string): Promise<Record<string, unknown>> {
  return JSON.parse(await Deno.readTextFile(new URL(`${name}/model.json`, CONFORMANCE)));
}

function isFile(url: URL): boolean {
  try {
    return Deno.statSync(url).isFile;
  } catch {
    return false;
  }
}
