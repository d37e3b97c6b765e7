/**
 * The wide model of the `batch` benchmark: a layered net of 59 places and 44 transitions
 * (`layered_net.ts`, nine layers), whose seven first-layer places take their marking from
 * trace attributes `x0` … `x6` (`batch_logs.ts` writes traces for it: those attributes, and
 * three to eight events named after random transitions). It stands for a real process model about as wide as
 * the ones users train, against the two-transition credit example.
 *
 * @example
 * ```ts
 * import { wideModel } from "./wide_net.ts";
 * wideModel().net.places.length; // 59
 * ```
 *
 * @module
 */

import { compileBundle } from "../core/bundle.ts";
import type { PetriModel } from "../core/net/types.ts";
import { writeBundle } from "../adapter/deno/bundle_files.ts";
import { layeredModel } from "./layered_net.ts";

/**
 * The wide model, its first-layer places read from attributes `x0`, `x1`, ….
 *
 * @example
 * ```ts
 * import { wideModel } from "./wide_net.ts";
 * wideModel().inputMarkingSpec.size; // the number of attributes a trace carries
 * ```
 */
export function wideModel(): PetriModel {
  const model = layeredModel(59, { layers: 9 });
  const sources = [...model.net.initialMarking.keys()];
  return {
    ...model,
    inputMarkingSpec: new Map(sources.map((place, i) => [place, { attribute: `x${i}` }])),
  };
}

/**
 * Compiles the wide model to `dir/wide.onnx` (and its sidecar); returns the `.onnx` path.
 *
 * @example
 * ```ts
 * import { writeWideBundle } from "./wide_net.ts";
 * await writeWideBundle("/tmp/bench"); // "/tmp/bench/wide.onnx"
 * ```
 */
export async function writeWideBundle(dir: string): Promise<string> {
  const path = `${dir}/wide.onnx`;
  await writeBundle(path, await compileBundle(wideModel(), { savedAt: new Date(0) }));
  return path;
}

if (import.meta.main) {
  const model = wideModel();
  console.log(
    `${model.net.places.length} places, ${model.net.transitions.length} transitions, ` +
      `${model.inputMarkingSpec.size} attributes`,
  );
}
