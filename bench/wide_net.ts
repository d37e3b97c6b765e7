/**
 * The wide model of the `batch` benchmark: a layered net of 59 places and 44 transitions
 * (`layered_net.ts`, nine layers), whose seven first-layer places take their marking from
 * trace attributes `x0` … `x6` (`batch_logs.ts` writes traces for it: those attributes, and
 * three to eight events named after random transitions). It stands for a real process model about as wide as
 * the ones users train, against the two-transition credit example. The big model
 * ({@link bigModel}) is the same for the 500-place net of `layered_net.ts` (six layers, 331
 * transitions, 84 first-layer places read from `x0` … `x83`): a net where the ORT run itself
 * is the cost (issue 21).
 *
 * @example
 * ```ts
 * import { wideModel } from "./wide_net.ts";
 * wideModel().net.places.length; // 59
 * ```
 *
 * @module
 */

import { compileBundle } from "../core/bundle/mod.ts";
import type { PetriModel } from "../core/net/mod.ts";
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
  return withSourceAttributes(layeredModel(59, { layers: 9 }));
}

/**
 * The big model: the 500-place layered net (`layeredModel(500)`, as `http_load.ts` and
 * `ort_micro.ts` measure it), its first-layer places read from attributes `x0`, `x1`, ….
 *
 * @example
 * ```ts
 * import { bigModel } from "./wide_net.ts";
 * bigModel().net.places.length; // 500
 * ```
 */
export function bigModel(): PetriModel {
  return withSourceAttributes(layeredModel(500));
}

/**
 * A layered net of `places` places (`layeredModel`), its first-layer places read from
 * attributes `x0`, `x1`, … as in the wide and big models: any size between and beyond them.
 *
 * @example
 * ```ts
 * import { attributedModel } from "./wide_net.ts";
 * attributedModel(150).inputMarkingSpec.get("p00000"); // { attribute: "x0" }
 * ```
 */
export function attributedModel(places: number, options: { layers?: number } = {}): PetriModel {
  return withSourceAttributes(layeredModel(places, options));
}

/** `model` with each first-layer (initially marked) place read from attribute `x0`, `x1`, …. */
function withSourceAttributes(model: PetriModel): PetriModel {
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

/**
 * Compiles the big model to `dir/big.onnx` (and its sidecar); returns the `.onnx` path.
 *
 * @example
 * ```ts
 * import { writeBigBundle } from "./wide_net.ts";
 * await writeBigBundle("/tmp/bench"); // "/tmp/bench/big.onnx"
 * ```
 */
export async function writeBigBundle(dir: string): Promise<string> {
  const path = `${dir}/big.onnx`;
  await writeBundle(path, await compileBundle(bigModel(), { savedAt: new Date(0) }));
  return path;
}

if (import.meta.main) {
  for (const model of [wideModel(), bigModel()]) {
    console.log(
      `${model.net.places.length} places, ${model.net.transitions.length} transitions, ` +
        `${model.inputMarkingSpec.size} attributes`,
    );
  }
}
