/**
 * What an operation needs of a loaded model: the net, its structure, labels, and a runner of
 * packed rows. The server passes its request's runner instead, so operations never see HTTP.
 *
 * @module
 */

import type { NetStructure } from "../net/structure.ts";
import type { ModuleSettings, Parameters, PetriNet } from "../net/types.ts";
import {
  type InputRow,
  type OutputRow,
  type PackedInputs,
  type PackedOutputs,
  packRows,
  type RunOptions,
  unpackRows,
} from "../runtime/codec.ts";

/** Runs packed rows: a model itself, or a request's runner in the server. */
export interface Runner {
  /** Runs `inputs` as one batch (or part of one); resolves with their outputs. */
  runPacked(inputs: PackedInputs, options: RunOptions): Promise<PackedOutputs>;
}

/** A loaded model as the operations see it. */
export interface OpsModel extends Runner {
  /** The net the model was compiled from. */
  readonly net: PetriNet;
  /** The module settings the model was trained with. */
  readonly module: ModuleSettings;
  /** The trained parameters. */
  readonly parameters: Parameters;
  /** Presets, postsets, source places and softmax groups of {@link OpsModel.net}. */
  readonly structure: NetStructure;
  /** Column of each place id in the model's tensors. */
  readonly placeIndex: ReadonlyMap<string, number>;
  /** Column of each transition id in the model's tensors. */
  readonly transitionIndex: ReadonlyMap<string, number>;
  /** The transition's label, or its id when it has none. */
  label(transition: string): string;
  /** Runs id-keyed rows as one batch; results in row order (the library's `Map` API). */
  run(rows: readonly InputRow[], options: RunOptions): Promise<OutputRow[]>;
}

/** An id-keyed map of numbers (a marking or a value map). */
export type IdMap = ReadonlyMap<string, number>;

/**
 * Runs id-keyed rows through `runner`: packed on the way in, split per row on the way out.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { runRows } from "./model.ts";
 * import { loadOrt } from "../../adapter/deno/ort.ts";
 * import { readBundle } from "../../adapter/deno/bundle_files.ts";
 * await using model = await readBundle(await loadOrt(), "examples/rest_serving");
 * const [row] = await runRows(model, model, [{ marking: new Map([["p_application", 1]]) }], {
 *   withGradient: false,
 * });
 * assert.ok(row!.transitions[0]! > 0.99);
 * ```
 */
export async function runRows(
  model: OpsModel,
  runner: Runner,
  rows: readonly InputRow[],
  options: RunOptions,
): Promise<OutputRow[]> {
  const columns = { places: model.net.places, transitions: model.net.transitions };
  const indexed = {
    ...columns,
    placeIndex: model.placeIndex,
    transitionIndex: model.transitionIndex,
  };
  const packed = packRows(indexed, rows);
  if (rows.length === 0) return [];
  return unpackRows(columns, await runner.runPacked(packed, options));
}
