/**
 * What an operation needs of a loaded model: the net, its structure, labels and a session that
 * runs batches of rows. `core/bundle.ts`'s `Model` satisfies it; tests may pass their own.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import type { OpsModel } from "./model.ts";
 * import { loadOrt } from "../../adapter/deno/ort.ts";
 * import { readBundle } from "../../adapter/deno/bundle_files.ts";
 * // A loaded bundle is an OpsModel.
 * await using model: OpsModel = await readBundle(await loadOrt(), "examples/rest_serving");
 * assert.equal(model.label(model.net.transitions[0]!), "approve loan");
 * ```
 *
 * @module
 */

import type { NetStructure } from "../net/structure.ts";
import type { ModuleSettings, Parameters, PetriNet } from "../net/types.ts";
import type { InputRow, OutputRow, RunOptions } from "../runtime.ts";

/** A loaded model as the operations see it. */
export interface OpsModel {
  /** The net the model was compiled from. */
  readonly net: PetriNet;
  /** The module settings the model was trained with. */
  readonly module: ModuleSettings;
  /** The trained parameters. */
  readonly parameters: Parameters;
  /** Presets, postsets, source places and softmax groups of {@link OpsModel.net}. */
  readonly structure: NetStructure;
  /** The transition's label, or its id when it has none. */
  label(transition: string): string;
  /**
   * Runs rows as one batch; results in row order. `options.signal` withdraws them while they
   * wait (the server passes each request's; see `server/admission.ts`).
   */
  run(rows: readonly InputRow[], options: RunOptions): Promise<OutputRow[]>;
}

/** An id-keyed map of numbers (a marking or a value map). */
export type IdMap = ReadonlyMap<string, number>;

/**
 * `model` with its `run` replaced: the same net, settings, parameters, structure and labels.
 * The server wraps the model this way per request (row counting) and for admission control.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { withRun } from "./model.ts";
 * import { loadOrt } from "../../adapter/deno/ort.ts";
 * import { readBundle } from "../../adapter/deno/bundle_files.ts";
 * await using model = await readBundle(await loadOrt(), "examples/rest_serving");
 * let rows = 0;
 * const counting = withRun(model, (batch, options) => {
 *   rows += batch.length;
 *   return model.run(batch, options);
 * });
 * await counting.run([{ marking: new Map() }], { withGradient: false });
 * assert.equal(rows, 1);
 * assert.equal(counting.label("t_approve"), model.label("t_approve"));
 * ```
 */
export function withRun(model: OpsModel, run: OpsModel["run"]): OpsModel {
  return {
    net: model.net,
    module: model.module,
    parameters: model.parameters,
    structure: model.structure,
    label: model.label.bind(model),
    run,
  };
}
