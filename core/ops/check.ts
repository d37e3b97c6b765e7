/**
 * Checks that a request's ids fit the net, with the 400 details of `docs/http_api.md`.
 *
 * @module
 */

import { quoteId } from "../net/quote_id.ts";
import { compareIds, type PetriNet } from "../net/types.ts";
import { RequestError } from "./errors.ts";
import type { IdMap } from "./model.ts";

/**
 * Throws a {@link RequestError} naming `field` and quoting every key of `map` that is not a
 * place of the net (sorted).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseModelDescription } from "../net/parse.ts";
 * import { checkPlaceKeys } from "./check.ts";
 * const { net } = parseModelDescription(JSON.parse(
 *   await Deno.readTextFile("examples/rest_serving/rest_serving.model.json"),
 * ));
 * assert.throws(() => checkPlaceKeys(net, "input_marking", new Map([["t_approve", 1], ["p_x", 1]])), {
 *   message: "input_marking has ids that are not in the net's place set: 'p_x', 't_approve'",
 * });
 * ```
 */
export function checkPlaceKeys(net: PetriNet, field: string, map: IdMap | null | undefined): void {
  if (!map) return;
  const places = placeSet(net);
  const unknown = [...map.keys()].filter((id) => !places.has(id)).sort(compareIds);
  if (unknown.length > 0) {
    throw new RequestError(
      `${field} has ids that are not in the net's place set: ${unknown.map(quoteId).join(", ")}`,
    );
  }
}

/** Throws unless `id` is a place: `flip_place 'p_x' is not in the net's place set`. */
export function checkPlace(net: PetriNet, field: string, id: string): void {
  if (!placeSet(net).has(id)) {
    throw new RequestError(`${field} ${quoteId(id)} is not in the net's place set`);
  }
}

/** Throws unless `id` is a transition: `target_transition 't_x' is not in the net's transition set`. */
export function checkTransition(net: PetriNet, field: string, id: string): void {
  if (!transitionSet(net).has(id)) {
    throw new RequestError(`${field} ${quoteId(id)} is not in the net's transition set`);
  }
}

const placeSets = new WeakMap<PetriNet, ReadonlySet<string>>();
const transitionSets = new WeakMap<PetriNet, ReadonlySet<string>>();

function placeSet(net: PetriNet): ReadonlySet<string> {
  let set = placeSets.get(net);
  if (!set) placeSets.set(net, set = new Set(net.places));
  return set;
}

function transitionSet(net: PetriNet): ReadonlySet<string> {
  let set = transitionSets.get(net);
  if (!set) transitionSets.set(net, set = new Set(net.transitions));
  return set;
}
