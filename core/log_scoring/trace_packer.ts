/**
 * Resolves each trace's input specs straight into the rows of a packed batch, with no map per
 * trace: the spec entries become columns once per model. The semantics are
 * `resolveTraceInputs`', and a failing trace gets `specErrorEntry`'s text; entries for ids that
 * are not places are resolved (a missing attribute still fails the trace) but not packed.
 *
 * @module
 */

import type { Model } from "../bundle/mod.ts";
import type { PackedInputs } from "../runtime/mod.ts";
import {
  type InputSpec,
  parsePythonFloat,
  resolveTraceInputs,
  SpecError,
  specErrorEntry,
  type Trace,
} from "../event_log/mod.ts";

/** One spec entry: the column it fills (-1: not a place) and a constant or an attribute. */
interface Column {
  readonly column: number;
  readonly constant: number | undefined;
  readonly attribute: string;
}

/** Writable packed inputs with room for `capacity` rows. */
export interface PackedRows {
  /** Rows it has room for. */
  readonly capacity: number;
  readonly marking: Float32Array;
  readonly markingMask: Float32Array;
  readonly values: Float32Array;
  readonly valuesMask: Float32Array;
}

/**
 * Packs traces into rows of a model's input tensors.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TracePacker } from "./trace_packer.ts";
 * import { loadOrt } from "../../adapter/deno/ort.ts";
 * import { readBundle } from "../../adapter/deno/bundle_files.ts";
 * await using model = await readBundle(await loadOrt(), "examples/rest_serving");
 * const packer = new TracePacker(model);
 * const rows = packer.rows(256);
 * const trace = { attributes: new Map([["risk_score", "0.92"]]), events: [] };
 * assert.equal(packer.pack(trace, 0, rows, 0), undefined); // row 0 holds the trace
 * assert.equal(rows.marking[0], Math.fround(0.92)); // p_application, from risk_score
 * // A trace without the attribute gets its error entry instead.
 * assert.equal(typeof packer.pack({ attributes: new Map(), events: [] }, 1, rows, 1), "string");
 * ```
 */
export class TracePacker {
  readonly #places: number;
  readonly #transitions: number;
  readonly #marking: readonly Column[];
  readonly #values: readonly Column[];

  constructor(readonly model: Model) {
    this.#places = model.session.places.length;
    this.#transitions = model.session.transitions.length;
    const columns = (spec: InputSpec): Column[] =>
      [...spec].map(([place, entry]) => ({
        column: model.placeIndex.get(place) ?? -1,
        constant: "constant" in entry ? entry.constant : undefined,
        attribute: "constant" in entry ? "" : entry.attribute,
      }));
    this.#marking = columns(model.inputMarkingSpec);
    this.#values = columns(model.inputValuesSpec);
  }

  /** Fresh zeroed arrays for `capacity` rows. */
  rows(capacity: number): PackedRows {
    const size = capacity * this.#places;
    return {
      capacity,
      marking: new Float32Array(size),
      markingMask: new Float32Array(size),
      values: new Float32Array(size),
      valuesMask: new Float32Array(size),
    };
  }

  /**
   * Writes `trace`'s inputs into row `row` of `rows`; returns undefined, or the error entry
   * text of trace `index` when its specs fail (the row is then left zeroed).
   */
  pack(trace: Trace, index: number, rows: PackedRows, row: number): string | undefined {
    const at = row * this.#places;
    if (
      fill(this.#marking, trace.attributes, rows.marking, rows.markingMask, at) &&
      fill(this.#values, trace.attributes, rows.values, rows.valuesMask, at)
    ) {
      return undefined;
    }
    for (const array of [rows.marking, rows.markingMask, rows.values, rows.valuesMask]) {
      array.fill(0, at, at + this.#places);
    }
    return this.#errorText(trace, index);
  }

  /** The first `count` rows as the graph's packed inputs. */
  inputs(rows: PackedRows, count: number): PackedInputs {
    const size = count * this.#places;
    return {
      batch: count,
      marking: rows.marking.subarray(0, size),
      markingMask: rows.markingMask.subarray(0, size),
      values: rows.values.subarray(0, size),
      valuesMask: rows.valuesMask.subarray(0, size),
      target: new Float32Array(count * this.#transitions),
    };
  }

  #errorText(trace: Trace, index: number): string {
    try {
      resolveTraceInputs(this.model.inputMarkingSpec, this.model.inputValuesSpec, trace);
    } catch (error) {
      if (error instanceof SpecError) return specErrorEntry(error, index);
      throw error;
    }
    throw new Error(`trace ${index}: its specs failed to pack but resolve`);
  }
}

/** Fills one spec's columns of a row; false when an attribute is missing or not a number. */
function fill(
  columns: readonly Column[],
  attributes: ReadonlyMap<string, string>,
  data: Float32Array,
  mask: Float32Array,
  at: number,
): boolean {
  for (const { column, constant, attribute } of columns) {
    let value = constant;
    if (value === undefined) {
      const text = attributes.get(attribute);
      if (text === undefined) return false;
      value = parsePythonFloat(text);
      if (value === undefined) return false;
    }
    if (column >= 0) {
      data[at + column] = value;
      mask[at + column] = 1;
    }
  }
  return true;
}
