/**
 * The request bodies of the HTTP benchmarks (`http_load.ts`, `serving_path.ts`,
 * `profile_serve.ts`): eight different bodies per operation, for the credit-approval example
 * and for any layered net of `layered_net.ts`, and a check that a server answers them before it
 * is measured.
 *
 * @example
 * ```ts
 * import { EXAMPLE_BODIES } from "./http_bodies.ts";
 * EXAMPLE_BODIES.forward.length; // 8
 * ```
 *
 * @module
 */

import type { PetriModel } from "../core/net/mod.ts";

/** The measured endpoints. */
export const ENDPOINTS = ["forward", "anomaly", "counterfactual", "sensitivity"] as const;
/** One of {@link ENDPOINTS}. */
export type Endpoint = typeof ENDPOINTS[number];

/** Request bodies per endpoint. */
export type Bodies = Readonly<Record<Endpoint, readonly string[]>>;

const AMOUNTS = [300, 800, 1500, 2500, 4000, 6000, 8000, 9500];

/**
 * Request bodies for the credit-approval example: loan amounts across the range, so the
 * firing decisions differ from request to request.
 *
 * @example
 * ```ts
 * import { EXAMPLE_BODIES } from "./http_bodies.ts";
 * JSON.parse(EXAMPLE_BODIES.forward[0]!).input_values; // { p_submitted: 300 }
 * ```
 */
export const EXAMPLE_BODIES: Bodies = {
  forward: AMOUNTS.map((amount) =>
    JSON.stringify({ input_marking: { p_submitted: 1 }, input_values: { p_submitted: amount } })
  ),
  anomaly: AMOUNTS.map((amount, i) =>
    JSON.stringify({
      input_marking: { p_submitted: 1 },
      input_values: { p_submitted: amount },
      events: i % 3 === 2
        ? [{ name: "decline loan" }, { name: "approve loan", attributes: { amount } }]
        : [{ name: i % 2 ? "approve loan" : "decline loan", attributes: { amount } }],
      attributes: { case_id: `loan-${i}`, amount },
    })
  ),
  counterfactual: AMOUNTS.map((amount) =>
    JSON.stringify({
      input_marking: { p_submitted: 1 },
      input_values: { p_submitted: amount },
      flip_place: "p_submitted",
      target_transition: "t_approve",
      flip_channel: "value",
      search_range: [0, 10000],
      tolerance: 0.001,
    })
  ),
  sensitivity: AMOUNTS.map((amount, i) =>
    JSON.stringify({
      input_marking: { p_submitted: 1 },
      input_values: { p_submitted: amount },
      target_transition: i % 2 ? "t_approve" : "t_decline",
    })
  ),
};

/**
 * Bodies for a layered net: its first-layer (source) places supplied with eight different
 * markings; events, targets and the flipped place picked from the net.
 */
export function layeredBodies(model: PetriModel): Bodies {
  const sources = [...model.net.initialMarking.keys()];
  const transitions = model.net.transitions;
  const markings = Array.from(
    { length: 8 },
    (_, i) => Object.fromEntries(sources.map((p, k) => [p, ((i * 7 + k * 3) % 10) / 10])),
  );
  const last = (i: number) => transitions[transitions.length - 1 - (i % 5)]!;
  return {
    forward: markings.map((input_marking) => JSON.stringify({ input_marking })),
    anomaly: markings.map((input_marking, i) =>
      JSON.stringify({
        input_marking,
        events: [{ name: transitions[i]! }, { name: last(i) }],
      })
    ),
    counterfactual: markings.map((input_marking, i) =>
      JSON.stringify({
        input_marking,
        flip_place: sources[i % sources.length]!,
        target_transition: last(i),
        flip_channel: "marking",
        search_range: [0, 1],
      })
    ),
    sensitivity: markings.map((input_marking, i) =>
      JSON.stringify({ input_marking, target_transition: last(i) })
    ),
  };
}

/** A key each endpoint's answer must have (checked once before measuring). */
export const ANSWER_KEY: Readonly<Record<Endpoint, string>> = {
  forward: "transition_activations",
  anomaly: "trace_score",
  counterfactual: "found",
  sensitivity: "value_gradients",
};

/**
 * Checks that every body of `endpoints` is answered 200 with the endpoint's key, before a
 * server is measured.
 *
 * @throws {Error} naming the endpoint and quoting the answer, when one is not.
 */
export async function check(
  origin: string,
  bodies: Bodies,
  endpoints: readonly Endpoint[] = ENDPOINTS,
): Promise<void> {
  for (const endpoint of endpoints) {
    for (const body of bodies[endpoint]) {
      const response = await fetch(`${origin}/${endpoint}`, { method: "POST", body });
      const answer = await response.json();
      if (response.status !== 200 || !(ANSWER_KEY[endpoint] in answer)) {
        throw new Error(`/${endpoint} answered ${response.status}: ${JSON.stringify(answer)}`);
      }
    }
  }
}
