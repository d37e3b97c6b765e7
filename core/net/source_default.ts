/**
 * What a source place (a place with an empty preset) holds when a request does not supply it,
 * defined once: the compiler builds it into the graph, and the operations that name a source
 * place's input read it from here.
 *
 * @module
 */

import type { PetriNet } from "./types.ts";

/** The value of a place that holds its input when `input_values` does not supply it. */
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
 *   initial_marking: { p_in: 3 },
 * }, (path, message) => assert.fail(`${path}: ${message}`));
 * assert.deepEqual(sourceDefault(net, "p_in"), { marking: 1, value: HELD_VALUE });
 * assert.equal(sourceDefault(net, "p_out").marking, 0);
 * ```
 */
export function sourceDefault(net: PetriNet, place: string): SourceDefault {
  return { marking: net.initialMarking.has(place) ? 1 : 0, value: HELD_VALUE };
}
