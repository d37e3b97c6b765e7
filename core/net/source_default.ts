/**
 * The one definition of what a source place (a place with an empty preset) holds when a
 * request does not supply it. The compiler builds it into the graph; the operations that must
 * name a source place's input (sensitivity keys, for instance) read it from here.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sourceDefault } from "./source_default.ts";
 * import { readNet } from "./read_net.ts";
 * const { net } = readNet({
 *   places: ["p_submitted", "p_done"],
 *   transitions: ["t_go"],
 *   arcs: [{ from: "p_submitted", to: "t_go" }, { from: "t_go", to: "p_done" }],
 *   initial_marking: { p_submitted: 3 },
 * }, (path, message) => assert.fail(`${path}: ${message}`));
 * // 1 when the initial marking names the place (whatever its count), else 0
 * assert.equal(sourceDefault(net, "p_submitted").marking, 1);
 * assert.equal(sourceDefault(net, "p_done").marking, 0);
 * ```
 *
 * @module
 */

import type { PetriNet } from "./types.ts";

/**
 * The value channel of a place that holds its input (a source place, or any clamped place)
 * when `input_values` does not supply it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HELD_VALUE } from "./source_default.ts";
 * assert.equal(HELD_VALUE, 1);
 * ```
 */
export const HELD_VALUE = 1;

/** A source place's inputs when the request supplies none. */
export interface SourceDefault {
  /** 1 when the initial marking names the place (whatever its token count), else 0. */
  readonly marking: 0 | 1;
  /** {@link HELD_VALUE}. */
  readonly value: number;
}

/**
 * The marking and value a source place of `net` takes when a request leaves it out. PETRA
 * reads only whether the initial marking has the key, not the token count.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HELD_VALUE, sourceDefault } from "./source_default.ts";
 * import { readNet } from "./read_net.ts";
 * const { net } = readNet({
 *   places: ["p_in", "p_out"],
 *   transitions: ["t_go"],
 *   arcs: [{ from: "p_in", to: "t_go" }, { from: "t_go", to: "p_out" }],
 * }, (path, message) => assert.fail(`${path}: ${message}`));
 * // No initial marking: a left-out source place takes marking 0 and the held value.
 * assert.deepEqual(sourceDefault(net, "p_in"), { marking: 0, value: HELD_VALUE });
 * ```
 */
export function sourceDefault(net: PetriNet, place: string): SourceDefault {
  return { marking: net.initialMarking.has(place) ? 1 : 0, value: HELD_VALUE };
}
