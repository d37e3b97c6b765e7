/**
 * Structural queries on a {@link PetriNet}: presets, postsets, source places, the longest-path
 * layering that fixes PETRA's acyclic evaluation order, softmax groups and cycle detection.
 *
 * @module
 */

import { compareIds, type PetriNet } from "./types.ts";

/** Derived, read-only facts about a net's structure. All id lists are sorted. */
export interface NetStructure {
  /** Sources of the flow arcs ending at each node (places and transitions). */
  readonly preset: ReadonlyMap<string, readonly string[]>;
  /** Destinations of the flow arcs starting at each node. */
  readonly postset: ReadonlyMap<string, readonly string[]>;
  /** Places with an empty preset: the net's inputs. */
  readonly sourcePlaces: readonly string[];
  /** Inhibitor places of each transition that has any. */
  readonly inhibitors: ReadonlyMap<string, readonly string[]>;
  /** Transitions sharing one preset (≥ 2 members), each sorted; only meaningful for softmax routing. */
  readonly softmaxGroups: readonly (readonly string[])[];
}

/**
 * Computes presets, postsets, source places, inhibitor lists and softmax groups of a net.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { netStructure } from "./structure.ts";
 * import { parseModelDescription } from "./parse.ts";
 * const { net } = parseModelDescription(JSON.parse(
 *   await Deno.readTextFile("examples/rest_serving/rest_serving.model.json"),
 * ));
 * const s = netStructure(net);
 * assert.deepEqual(s.preset.get("t_approve"), ["p_application"]);
 * assert.deepEqual(s.sourcePlaces, ["p_application"]);
 * ```
 */
export function netStructure(net: PetriNet): NetStructure {
  const preset = new Map<string, string[]>();
  const postset = new Map<string, string[]>();
  for (const id of [...net.places, ...net.transitions]) {
    preset.set(id, []);
    postset.set(id, []);
  }
  for (const { from, to } of net.arcs) {
    preset.get(to)?.push(from);
    postset.get(from)?.push(to);
  }
  for (const list of [...preset.values(), ...postset.values()]) list.sort(compareIds);

  const inhibitors = new Map<string, string[]>();
  for (const { place, transition } of net.inhibitorArcs) {
    const list = inhibitors.get(transition) ?? [];
    list.push(place);
    inhibitors.set(transition, list);
  }
  for (const list of inhibitors.values()) list.sort(compareIds);

  const byPreset = new Map<string, string[]>();
  for (const t of net.transitions) {
    const inputs = [...new Set(preset.get(t) ?? [])];
    if (inputs.length === 0) continue;
    const key = JSON.stringify(inputs);
    const members = byPreset.get(key) ?? [];
    members.push(t);
    byPreset.set(key, members);
  }
  const softmaxGroups = [...byPreset.values()].filter((g) => g.length >= 2);

  return {
    preset,
    postset,
    sourcePlaces: net.places.filter((p) => (preset.get(p) ?? []).length === 0),
    inhibitors,
    softmaxGroups,
  };
}

/**
 * Longest-path depth of every node from a source (PETRA's `graphlib` generations): sources and
 * isolated places 0, every other node 1 + the largest depth in its preset. Places land on even
 * depths and transitions on odd ones. Returns `undefined` when the flow relation has a cycle.
 */
export function nodeDepths(
  net: PetriNet,
  structure: NetStructure,
): Map<string, number> | undefined {
  const depth = new Map<string, number>();
  const pending = new Map<string, number>();
  const ready: string[] = [];
  for (const id of [...net.places, ...net.transitions]) {
    const n = structure.preset.get(id)?.length ?? 0;
    pending.set(id, n);
    if (n === 0) {
      ready.push(id);
      depth.set(id, 0);
    }
  }
  for (let i = 0; i < ready.length; i++) {
    const id = ready[i]!;
    const d = depth.get(id)!;
    for (const next of structure.postset.get(id) ?? []) {
      depth.set(next, Math.max(depth.get(next) ?? 0, d + 1));
      const left = pending.get(next)! - 1;
      pending.set(next, left);
      if (left === 0) ready.push(next);
    }
  }
  return ready.length === pending.size ? depth : undefined;
}

/**
 * One cycle of the flow relation, as the list of node ids along it (first id repeated at the
 * end), or `undefined` when the net is acyclic.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { findCycle, netStructure } from "./structure.ts";
 * import { parseModelDescription } from "./parse.ts";
 * const { net } = parseModelDescription(JSON.parse(
 *   await Deno.readTextFile("examples/rest_serving/rest_serving.model.json"),
 * ));
 * assert.equal(findCycle(net, netStructure(net)), undefined); // no cycle
 * const loop = { ...net, arcs: [...net.arcs, { from: "p_approved", to: "t_approve" }] };
 * assert.deepEqual(findCycle(loop, netStructure(loop)), ["t_approve", "p_approved", "t_approve"]);
 * ```
 */
export function findCycle(net: PetriNet, structure: NetStructure): string[] | undefined {
  const state = new Map<string, 1 | 2>(); // 1 = on the current path, 2 = finished
  for (const root of [...net.places, ...net.transitions]) {
    if (state.has(root)) continue;
    const path: string[] = [root];
    const cursor: number[] = [0];
    state.set(root, 1);
    while (path.length > 0) {
      const node = path[path.length - 1]!;
      const next = structure.postset.get(node) ?? [];
      const i = cursor[cursor.length - 1]!;
      if (i >= next.length) {
        state.set(node, 2);
        path.pop();
        cursor.pop();
        continue;
      }
      cursor[cursor.length - 1] = i + 1;
      const child = next[i]!;
      const seen = state.get(child);
      if (seen === 1) return [...path.slice(path.indexOf(child)), child];
      if (seen === undefined) {
        state.set(child, 1);
        path.push(child);
        cursor.push(0);
      }
    }
  }
  return undefined;
}
