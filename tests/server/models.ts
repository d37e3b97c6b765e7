/**
 * Real compiled models for the server tests: a model description is compiled with
 * `compileBundle` and opened with `loadBundle` on onnxruntime-web (WASM, one thread, initialised
 * by ../ort.ts before any test starts), exactly as `serve` will. Release each model with
 * `await using`.
 *
 * @example
 * ```ts
 * import { loadConformanceModel } from "./models.ts";
 * await using model = await loadConformanceModel("rest_serving");
 * model.net.places; // ["p_application", "p_approved", "p_declined"]
 * ```
 *
 * @module
 */

import { compileBundle, loadBundle, type Model } from "../../core/bundle/mod.ts";
import { parseModelDescription } from "../../core/net/parse.ts";
import type { PetriModel } from "../../core/net/types.ts";
import { ORT } from "../ort.ts";

import { readConformanceDescription } from "../conformance/fixtures.ts";

/** Re-exported for the tests that import it from here. */
export { readConformanceDescription };

/**
 * Compiles a model description (JSON) and opens it.
 *
 * @example
 * ```ts
 * import { openModel, xorDescription } from "./models.ts";
 * await using model = await openModel(xorDescription());
 * ```
 */
export async function openModel(description: unknown): Promise<Model> {
  return await openPetriModel(parseModelDescription(description));
}

/**
 * Compiles a parsed model and opens it.
 *
 * @example
 * ```ts
 * import { openPetriModel } from "./models.ts";
 * declare const petriModel: import("../../core/net/types.ts").PetriModel;
 * await using model = await openPetriModel(petriModel);
 * ```
 */
export async function openPetriModel(petriModel: PetriModel): Promise<Model> {
  const bundle = await compileBundle(petriModel, { savedAt: new Date(0) });
  return await loadBundle(ORT, {
    onnx: bundle.onnx,
    sidecar: bundle.sidecar,
    onnxName: "model.onnx",
    sidecarName: "model.onnx.meta.json",
  });
}

/**
 * Compiles and opens `conformance/NAME/model.json`.
 *
 * @example
 * ```ts
 * import { loadConformanceModel } from "./models.ts";
 * await using model = await loadConformanceModel("paint_shop");
 * ```
 */
export async function loadConformanceModel(name: string): Promise<Model> {
  return await openModel(await readConformanceDescription(name));
}

/**
 * PETRA's test_rest.py fixture: p_in -> t_a "Path A" -> p_a and
 * p_in -> t_b "Path B" -> p_b, sharpness 8, weights 1, θa 0.3, θb 0.7.
 *
 * @example
 * ```ts
 * import { xorDescription } from "./models.ts";
 * xorDescription().net.transitions; // ["t_a", "t_b"]
 * ```
 */
export function xorDescription() {
  return {
    format: "petri-net-model/1",
    net: {
      places: ["p_in", "p_a", "p_b"],
      transitions: ["t_a", "t_b"],
      arcs: [
        { from: "p_in", to: "t_a" },
        { from: "p_in", to: "t_b" },
        { from: "t_a", to: "p_a" },
        { from: "t_b", to: "p_b" },
      ],
      labels: { t_a: "Path A", t_b: "Path B" },
    },
    module: { sharpness: 8, num_steps: 0, firing: "sigmoid", routing: "independent" },
    parameters: {
      arc_weights: [
        { from: "p_in", to: "t_a", weight: 1 },
        { from: "p_in", to: "t_b", weight: 1 },
        { from: "t_a", to: "p_a", weight: 1 },
        { from: "t_b", to: "p_b", weight: 1 },
      ],
      transition_thresholds: { t_a: 0.3, t_b: 0.7 },
    },
  };
}

/**
 * A net whose ids are the names plain objects treat specially: source places `__proto__` and
 * `constructor` feed the transition `toString` (label "to string"), which fills the place
 * `hasOwnProperty`. Built with `JSON.parse` so the `__proto__` keys are own properties.
 *
 * @example
 * ```ts
 * import { trickyIdsDescription } from "./models.ts";
 * trickyIdsDescription().net.places.includes("__proto__"); // true
 * ```
 */
export function trickyIdsDescription(): { net: { places: string[] } } & Record<string, unknown> {
  return JSON.parse(`{
    "format": "petri-net-model/1",
    "net": {
      "places": ["__proto__", "constructor", "hasOwnProperty"],
      "transitions": ["toString"],
      "arcs": [
        {"from": "__proto__", "to": "toString"},
        {"from": "constructor", "to": "toString"},
        {"from": "toString", "to": "hasOwnProperty"}
      ],
      "initial_marking": {"__proto__": 1},
      "labels": {"toString": "to string"}
    },
    "module": {"sharpness": 2, "num_steps": 0, "firing": "sigmoid", "routing": "independent"},
    "parameters": {
      "arc_weights": [
        {"from": "__proto__", "to": "toString", "weight": 1},
        {"from": "constructor", "to": "toString", "weight": 1},
        {"from": "toString", "to": "hasOwnProperty", "weight": 1}
      ],
      "transition_thresholds": {"toString": 0.5}
    }
  }`);
}
