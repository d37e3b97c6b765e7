/**
 * `counterfactual`: the smallest change of one input (a place's marking or value) that brings a
 * transition's activation to the 0.5 decision boundary. A grid runs in one batch, then the sign
 * change nearest the original input is refined: a bounded number of runs, and a flip is found
 * even where the activation jumps over 0.5.
 *
 * @module
 */

import { quoteId } from "../net/quote_id.ts";
import { checkPlace, checkPlaceKeys, checkTransition } from "./check.ts";
import { RequestError } from "./errors.ts";
import type { IdMap, OpsModel, Runner } from "./model.ts";
import type { Operation } from "./operation.ts";
import { allocateInputs, type PackedInputs } from "../runtime/codec.ts";

/** The default `tolerance`: |activation − 0.5| below which a probe is on the boundary. */
export const DEFAULT_TOLERANCE = 1e-3;

/** Which channel of `flip_place` the search varies. */
export type FlipChannel = "marking" | "value";

/** A counterfactual request. */
export interface CounterfactualRequest {
  /** Marking by place id; each supplied place is clamped to its number. */
  readonly input_marking: IdMap;
  /** Value-channel inputs by place id; absent or null means no values. */
  readonly input_values?: IdMap | null;
  /** The place whose input the search varies. */
  readonly flip_place: string;
  /** The transition whose firing decision should flip. */
  readonly target_transition: string;
  /**
   * Which input of `flip_place` the search varies.
   * @default {"marking"}
   */
  readonly flip_channel?: FlipChannel;
  /**
   * `[lo, hi]` with lo < hi.
   * @default {[0, 1]}
   */
  readonly search_range?: readonly [number, number];
  /**
   * |activation − 0.5| below which a probe is on the boundary; > 0.
   * @default {DEFAULT_TOLERANCE}
   */
  readonly tolerance?: number;
}

/** The response: the boundary point when found, else only `found` and `target_transition`. */
export type CounterfactualResponse =
  | { readonly found: false; readonly target_transition: string }
  | {
    readonly found: true;
    readonly target_transition: string;
    readonly target_label: string;
    readonly flipped_place: string;
    readonly flipped_channel: FlipChannel;
    readonly original_input: number;
    readonly counterfactual_input: number;
    readonly original_activation: number;
    readonly counterfactual_activation: number;
  };

const GRID_POINTS = 129;
const REFINE_PROBES = 31;

/**
 * The search stops refining once its bracket is narrower than this share of the range; the
 * playground samples its curve this close to the boundary.
 */
export const CLOSING_WIDTH = 1e-6;

/**
 * The most refinement rounds one search runs: enough for a grid bracket to close at
 * {@link CLOSING_WIDTH}, plus one for float64 rounding of the probe positions.
 */
export const MAX_REFINE_ROUNDS: number = Math.ceil(
  Math.log(1 / ((GRID_POINTS - 1) * CLOSING_WIDTH)) / Math.log(REFINE_PROBES + 1),
) + 1;

/** The most model rows one counterfactual search runs, so that callers can budget them. */
export const MAX_SEARCH_ROWS: number = 1 + GRID_POINTS + MAX_REFINE_ROUNDS * REFINE_PROBES + 1;

/**
 * Searches for the decision boundary nearest the original input.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { counterfactual } from "./counterfactual.ts";
 * import { loadOrt } from "../../adapter/deno/ort.ts";
 * import { readBundle } from "../../adapter/deno/bundle_files.ts";
 * await using model = await readBundle(await loadOrt(), "examples/rest_serving");
 * const request = {
 *   input_marking: new Map([["p_application", 1]]),
 *   flip_place: "p_application",
 *   target_transition: "t_approve",
 * };
 * const response = await counterfactual(model, request);
 * assert.ok(response.found);
 * // Approval flips when the application's marking drops to about 0.49.
 * assert.ok(Math.abs(response.counterfactual_input - 0.49) < 0.01);
 * // No crossing of 0.5 lies in this range: not found, and not an error.
 * const none = await counterfactual(model, { ...request, search_range: [0.95, 1] });
 * assert.deepEqual(none, { found: false, target_transition: "t_approve" });
 * ```
 */
export async function counterfactual(
  model: OpsModel,
  request: CounterfactualRequest,
  runner: Runner = model,
): Promise<CounterfactualResponse> {
  // Check: ids against the net, then the range and tolerance.
  const { net } = model;
  checkPlace(net, "flip_place", request.flip_place);
  checkTransition(net, "target_transition", request.target_transition);
  checkPlaceKeys(net, "input_marking", request.input_marking);
  checkPlaceKeys(net, "input_values", request.input_values);
  const channel = request.flip_channel ?? "marking";
  const [lo, hi] = request.search_range ?? [0, 1];
  const tolerance = request.tolerance ?? DEFAULT_TOLERANCE;
  if (!(lo < hi) || !Number.isFinite(lo) || !Number.isFinite(hi)) {
    throw new RequestError(
      `search_range must be two finite numbers with lo < hi, got [${lo}, ${hi}]`,
    );
  }
  if (!(tolerance > 0) || !Number.isFinite(tolerance)) {
    throw new RequestError(`tolerance must be a finite number > 0, got ${tolerance}`);
  }

  // Run: the base point and the grid in one batch, then refine the nearest bracket.
  const targetColumn = model.transitionIndex.get(request.target_transition)!;
  const T = net.transitions.length;
  const rows = probeRows(model, request, channel);
  const run = async (xs: readonly number[]): Promise<Probe[]> => {
    const out = await runner.runPacked(rows(xs), { withGradient: false });
    return xs.map((x, i) => ({ x, act: out.transitions[i * T + targetColumn]! }));
  };

  const grid = Array.from(
    { length: GRID_POINTS },
    (_, i) => between(lo, hi, i / (GRID_POINTS - 1)),
  );
  // Row 0 is the base point (nothing flipped), rows 1… the grid.
  const first = await runner.runPacked(rows([undefined, ...grid]), { withGradient: false });
  const originalActivation = first.transitions[targetColumn]!;
  const original = await originalInput(model, runner, request, channel, rows, first.places);
  const search = new BoundarySearch(original, tolerance);
  let choice = search.choose(
    grid.map((x, i) => ({ x, act: first.transitions[(i + 1) * T + targetColumn]! })),
  );
  // Scaled before subtracting: hi - lo overflows for spans past the largest double.
  const closingWidth = hi * CLOSING_WIDTH - lo * CLOSING_WIDTH;
  for (
    let round = 0;
    round < MAX_REFINE_ROUNDS && choice?.kind === "bracket" &&
    !isClosed(choice.a.x, choice.b.x, closingWidth);
    round++
  ) {
    const { a, b } = choice;
    const inner = await run(Array.from(
      { length: REFINE_PROBES },
      (_, k) => between(a.x, b.x, (k + 1) / (REFINE_PROBES + 1)),
    ));
    const next = search.choose([a, ...inner, b]);
    if (!next) break; // only NaN activations can lose a sign change
    choice = next;
  }

  // Shape: the boundary point, or only `found` and `target_transition`.
  if (!choice) return { found: false, target_transition: request.target_transition };
  const answer = choice.kind === "point" ? choice.p : farEnd(choice, originalActivation);
  return {
    found: true,
    target_transition: request.target_transition,
    target_label: model.label(request.target_transition),
    flipped_place: request.flip_place,
    flipped_channel: channel,
    original_input: original,
    counterfactual_input: answer.x,
    original_activation: originalActivation,
    counterfactual_activation: answer.act,
  };
}

/**
 * Whether a bracket `[a, b]` (a < b) is refined no further: it is narrower than the closing
 * width, or no float32 lies between its ends, so the graph (which takes float32 inputs) cannot
 * split it and float64 refinement would go on forever.
 */
export function isClosed(a: number, b: number, closingWidth: number): boolean {
  return b - a < closingWidth || float32Rank(b) - float32Rank(a) <= 1;
}

/**
 * The point a share `t` (0 to 1) of the way from `a` to `b` (a < b): built from the half-span
 * and the nearer end, so no intermediate overflows where `b − a` would.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { between } from "./counterfactual.ts";
 * assert.equal(between(0, 1, 0.25), 0.25);
 * assert.equal(between(-Number.MAX_VALUE, Number.MAX_VALUE, 0.5), 0);
 * assert.equal(between(-Number.MAX_VALUE, Number.MAX_VALUE, 1), Number.MAX_VALUE);
 * ```
 */
export function between(a: number, b: number, t: number): number {
  const half = b / 2 - a / 2;
  const x = t <= 0.5 ? a + half * (2 * t) : b - half * (2 * (1 - t));
  return Math.min(b, Math.max(a, x));
}

/**
 * The position of `Math.fround(x)` among the float32 values in increasing order (0 for both
 * zeros), so that two float32 values are neighbours exactly when their ranks differ by 1.
 */
function float32Rank(x: number): number {
  FLOAT32[0] = x;
  const bits = UINT32[0]!;
  const magnitude = bits & 0x7fffffff;
  return bits >>> 31 ? -magnitude : magnitude;
}

const FLOAT32 = new Float32Array(1);
const UINT32 = new Uint32Array(FLOAT32.buffer);

interface Probe {
  readonly x: number;
  readonly act: number;
}

type Choice =
  | { readonly kind: "point"; readonly p: Probe }
  | { readonly kind: "bracket"; readonly a: Probe; readonly b: Probe };

/** Picks, among probes sorted by x, the boundary evidence nearest the original input. */
class BoundarySearch {
  constructor(readonly original: number, readonly tolerance: number) {}

  isHit(p: Probe): boolean {
    return Math.abs(p.act - 0.5) < this.tolerance;
  }

  /**
   * The boundary evidence nearest the original input: a hit (a probe within tolerance, which
   * is a response) or an interval whose ends straddle 0.5 (to be refined); ties go to the hit.
   */
  choose(probes: readonly Probe[]): Choice | undefined {
    let best: { d: number; rank: number; c: Choice } | undefined;
    const consider = (d: number, rank: number, c: Choice) => {
      if (!best || d < best.d || (d === best.d && rank < best.rank)) best = { d, rank, c };
    };
    for (const p of probes) {
      if (this.isHit(p)) consider(halfDistance(p.x, this.original), 0, { kind: "point", p });
    }
    for (let i = 0; i + 1 < probes.length; i++) {
      const a = probes[i]!;
      const b = probes[i + 1]!;
      if (this.isHit(a) || this.isHit(b)) continue;
      if (Math.sign(a.act - 0.5) * Math.sign(b.act - 0.5) < 0) {
        const d = this.original < a.x
          ? halfDistance(a.x, this.original)
          : this.original > b.x
          ? halfDistance(b.x, this.original)
          : 0;
        consider(d, 1, { kind: "bracket", a, b });
      }
    }
    return best?.c;
  }
}

/** Half the distance between two finite numbers: it never overflows, and orders as the distance. */
function halfDistance(x: number, y: number): number {
  return Math.abs(x / 2 - y / 2);
}

/**
 * The end of a narrowed bracket on the far side of 0.5 from the original activation: the
 * first input at which the decision has flipped. An original activation of exactly 0.5 has no
 * side; then the end nearer 0.5 is taken.
 */
function farEnd(bracket: { readonly a: Probe; readonly b: Probe }, originalActivation: number) {
  const { a, b } = bracket;
  const side = Math.sign(originalActivation - 0.5);
  if (side === 0 || Number.isNaN(side)) {
    return Math.abs(a.act - 0.5) <= Math.abs(b.act - 0.5) ? a : b;
  }
  return Math.sign(a.act - 0.5) === side ? b : a;
}

/**
 * Packs probe rows: each is the base row (the request's marking and values) with the flipped
 * place set to its `x` on the request's channel; an `undefined` x is the base row itself.
 */
function probeRows(
  model: OpsModel,
  request: CounterfactualRequest,
  channel: FlipChannel,
): (xs: readonly (number | undefined)[]) => PackedInputs {
  const { net, placeIndex } = model;
  const P = net.places.length;
  const T = net.transitions.length;
  const base = allocateInputs(1, P, T);
  const fill = (map: IdMap | null | undefined, data: Float32Array, mask: Float32Array) => {
    for (const [id, x] of map ?? []) {
      const column = placeIndex.get(id)!;
      data[column] = x;
      mask[column] = 1;
    }
  };
  fill(request.input_marking, base.marking, base.markingMask);
  fill(request.input_values, base.values, base.valuesMask);
  const flipped = placeIndex.get(request.flip_place)!;
  return (xs) => {
    const rows = allocateInputs(xs.length, P, T);
    const [data, mask] = channel === "marking"
      ? [rows.marking, rows.markingMask]
      : [rows.values, rows.valuesMask];
    for (let r = 0; r < xs.length; r++) {
      rows.marking.set(base.marking, r * P);
      rows.markingMask.set(base.markingMask, r * P);
      rows.values.set(base.values, r * P);
      rows.valuesMask.set(base.valuesMask, r * P);
      const x = xs[r];
      if (x === undefined) continue;
      data[r * P + flipped] = x;
      mask[r * P + flipped] = 1;
    }
    return rows;
  };
}

/**
 * The input the model actually used at the flipped place in the base pass: the supplied
 * value; else what the graph computed there: the `places` output on the marking channel (a
 * source place's default, or its computed activation), the `place_values` output on the value
 * channel (a held place's default, or its computed value).
 */
async function originalInput(
  model: OpsModel,
  runner: Runner,
  request: CounterfactualRequest,
  channel: FlipChannel,
  rows: (xs: readonly (number | undefined)[]) => PackedInputs,
  basePlaces: Float32Array,
): Promise<number> {
  const p = request.flip_place;
  const column = model.placeIndex.get(p)!;
  const supplied = channel === "marking"
    ? request.input_marking.get(p)
    : request.input_values?.get(p);
  if (supplied !== undefined) return supplied;
  if (channel === "marking") return basePlaces[column]!;
  // place_values is computed in the gradient branch, which forward runs skip.
  const out = await runner.runPacked(rows([undefined]), { withGradient: true });
  if (out.placeValues === undefined) {
    throw new RequestError(
      `flip_channel 'value' needs the value the model computed at flip_place ${quoteId(p)}, ` +
        `but the served bundle predates the place_values output: supply input_values ` +
        `for ${quoteId(p)}, or recompile the bundle with petri-serve's compile command`,
    );
  }
  return out.placeValues[column]!;
}

/** The `counterfactual` row of the operations table: `POST /counterfactual`, schemas and documentation. */
export const counterfactualOperation: Operation<
  "counterfactual",
  CounterfactualRequest,
  CounterfactualResponse
> = {
  name: "counterfactual",
  path: "/counterfactual",
  summary: "The smallest change of one input that flips a transition's firing decision",
  description: "Searches search_range for the input at flip_place (on flip_channel) nearest " +
    "the original input where the target's activation crosses 0.5, smoothly or in a jump: a " +
    "probe within tolerance of 0.5, else the first input found past the crossing. No " +
    "crossing is not an error: the answer is found false.",
  badRequest: {
    description: "flip_place is not a place, target_transition is not a transition (checked " +
      "in that order), or an input id is not a place; or, on a bundle compiled before the " +
      "place_values output, a value-channel search that does not supply flip_place's value",
    detail: "flip_place 'p_x' is not in the net's place set",
  },
  requestSchema: ({ z, marking, values, placeId, transitionId, examples }) =>
    z.object({
      input_marking: marking,
      input_values: values,
      flip_place: placeId(
        "The place whose input is varied; it must be a place of the net",
        "p_submitted",
      ),
      target_transition: transitionId(
        "The transition whose firing decision should flip; it must be a transition of the net",
      ),
      flip_channel: z.enum(["marking", "value"]).default("marking").meta({
        description: "Which input of flip_place is varied: its marking or its value",
        example: "value",
      }),
      search_range: z.tuple([z.number(), z.number()])
        .refine(([lo, hi]) => lo < hi, { message: "search_range must be [lo, hi] with lo < hi" })
        .default([0, 1])
        .meta({
          description: "[lo, hi], finite, lo < hi: the interval searched for the input at " +
            "which the target's activation crosses 0.5",
          example: [0, 10000],
          // zod-to-openapi writes only prefixItems for a tuple
          minItems: 2,
          maxItems: 2,
        }),
      tolerance: z.number().gt(0).default(DEFAULT_TOLERANCE).meta({
        description: "A finite number > 0: a probe is on the boundary when " +
          "|activation - 0.5| < tolerance",
        example: 0.001,
      }),
    }).meta({
      id: "CounterfactualRequest",
      description: "The base point, the input to vary and the transition whose decision to flip",
      example: {
        input_marking: examples.marking,
        input_values: examples.values,
        flip_place: "p_submitted",
        target_transition: "t_approve",
        flip_channel: "value",
        search_range: [0, 10000],
        tolerance: 0.001,
      },
    }),
  responseSchema: ({ z, activation }) => {
    const found = z.object({
      found: z.literal(true),
      target_transition: z.string().meta({ description: "Echo of the request" }),
      target_label: z.string().meta({ description: "Label of the target transition" }),
      flipped_place: z.string().meta({ description: "Echo of flip_place" }),
      flipped_channel: z.enum(["marking", "value"]).meta({ description: "Echo of flip_channel" }),
      original_input: z.number().meta({
        description: "The input the model used at flip_place in the base pass",
      }),
      counterfactual_input: z.number().meta({
        description: "The input at the boundary nearest the original input",
      }),
      original_activation: activation("The target's activation at the base point", 0.97),
      counterfactual_activation: activation(
        "The target's activation at the boundary: within tolerance of 0.5, or across 0.5 from " +
          "original_activation where it jumps (straight-through firing)",
        0.5003,
      ),
    }).meta({ id: "CounterfactualFound", description: "A crossing of 0.5 was found" });
    const notFound = z.strictObject({
      found: z.literal(false),
      target_transition: z.string().meta({ description: "Echo of the request" }),
    }).meta({
      id: "CounterfactualNotFound",
      description: "No crossing of 0.5 within search_range; no other field is present",
    });
    return z.union([found, notFound]).meta({
      id: "CounterfactualResponse",
      description: "The boundary point when found, else only found and target_transition",
    });
  },
  run: counterfactual,
};
