/**
 * Deterministic generator of large layered nets for benchmarks: `places` places spread over a
 * fixed number of layers, each transition reading one to three places of the layer before and
 * writing one or two of the next, with a few inhibitors and guards. Depth stays constant while
 * width grows, so timings show how cost follows the number of arcs.
 *
 * @example
 * ```ts
 * import { layeredModel } from "./layered_net.ts";
 * layeredModel(100).net.places.length; // 100
 * ```
 *
 * @module
 */

import { mulberry32 } from "../tests/random.ts";

import { type Arc, arcKey, compareIds, type PetriModel } from "../core/net/mod.ts";

/** Builds a layered acyclic model (or time-unrolled with `numSteps`). */
export function layeredModel(
  places: number,
  options: { numSteps?: number; layers?: number } = {},
): PetriModel {
  const layers = Math.min(options.layers ?? 6, places);
  const random = mulberry32(0x9e3779b9 ^ places);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  const name = (prefix: string, i: number) => `${prefix}${String(i).padStart(5, "0")}`;
  const placeLayers: string[][] = Array.from({ length: layers }, () => []);
  for (let i = 0; i < places; i++) {
    placeLayers[Math.floor((i * layers) / places)]!.push(name("p", i));
  }

  const arcs: Arc[] = [];
  const transitions: string[] = [];
  const inhibitorArcs: { place: string; transition: string }[] = [];
  const structuralGuards = new Map<string, { place: string; op: ">=" | "<"; value: number }>();
  for (let l = 1; l < layers; l++) {
    const before = placeLayers[l - 1]!;
    const after = placeLayers[l]!;
    const count = Math.max(1, Math.round(after.length * 0.8));
    for (let k = 0; k < count; k++) {
      const t = name("t", transitions.length);
      transitions.push(t);
      const inputs = new Set<string>();
      const fanIn = 1 + Math.floor(random() * 3);
      for (let j = 0; j < fanIn; j++) inputs.add(pick(before));
      const outputs = new Set<string>([after[k % after.length]!]);
      if (random() < 0.5) outputs.add(pick(after));
      for (const p of inputs) arcs.push({ from: p, to: t });
      for (const p of outputs) arcs.push({ from: t, to: p });
      if (l >= 2 && random() < 0.1) {
        inhibitorArcs.push({ place: pick(placeLayers[l - 2]!), transition: t });
      }
      if (random() < 0.1) {
        structuralGuards.set(t, {
          place: [...inputs][0]!,
          op: random() < 0.5 ? ">=" : "<",
          value: 0.5,
        });
      }
    }
  }
  // Places that no transition writes become extra source places; keep every place reachable.
  arcs.sort((a, b) => compareIds(a.from, b.from) || compareIds(a.to, b.to));
  const weights = new Map(arcs.map((a) => [arcKey(a.from, a.to), 0.5 + random()]));
  return {
    net: {
      places: placeLayers.flat().sort(compareIds),
      transitions: transitions.sort(compareIds),
      arcs,
      inhibitorArcs: inhibitorArcs.sort((a, b) =>
        compareIds(a.place, b.place) || compareIds(a.transition, b.transition)
      ),
      initialMarking: new Map(placeLayers[0]!.map((p) => [p, 1])),
      labels: new Map(),
      silentTransitions: [],
      structuralGuards,
      rates: new Map(),
      durations: new Map(),
      arcOutputValues: [],
    },
    module: {
      sharpness: 2,
      numSteps: options.numSteps ?? 0,
      firing: "sigmoid",
      routing: "independent",
    },
    parameters: {
      arcWeights: weights,
      transitionThresholds: new Map(transitions.map((t) => [t, random()])),
      guardThresholds: new Map([...structuralGuards.keys()].map((t) => [t, 0.5])),
    },
    inputMarkingSpec: new Map(),
    inputValuesSpec: new Map(),
  };
}
