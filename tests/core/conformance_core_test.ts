/**
 * Conformance at the core level (no HTTP): every conformance model is compiled into a bundle,
 * loaded, and every recorded `/forward` and `/sensitivity` exchange that PETRA answered with
 * numbers is replayed through `core/ops` — activations within 1e-5 of PETRA's, and every
 * gradient PETRA reports within 1e-5 (1e-4 relative), extra keys only for source places (D7).
 *
 * @module
 */

import { compileBundle, loadBundle } from "../../core/bundle.ts";
import { parseModelDescription } from "../../core/net/parse.ts";
import { forward } from "../../core/ops/forward.ts";
import { sensitivity } from "../../core/ops/sensitivity.ts";
import { ORT } from "../ort.ts";

const CONFORMANCE = new URL("../../../shared/conformance/", import.meta.url);
const MODELS = [
  "rest_serving",
  "credit_approval_coloured",
  "resource_lock",
  "triage_softmax_ste",
  "paint_shop",
];

interface Exchange {
  i: number;
  path: string;
  body?: Record<string, unknown>;
  petra: { response?: Record<string, unknown> };
  expect: { status?: number; compare: string; response?: Record<string, unknown> };
}

const idMap = (json: unknown) => new Map(Object.entries((json ?? {}) as Record<string, number>));

function close(got: number, want: number, rtol = 1e-5): boolean {
  return Math.abs(got - want) <= 1e-5 || Math.abs(got - want) <= rtol * Math.abs(want);
}

function compareMaps(
  label: string,
  got: ReadonlyMap<string, number>,
  want: Record<string, number>,
  rtol = 1e-5,
): string[] {
  return Object.entries(want).flatMap(([id, w]) => {
    const g = got.get(id);
    return g !== undefined && close(g, w, rtol) ? [] : [`${label}[${id}]: ${g} vs PETRA ${w}`];
  });
}

for (const name of MODELS) {
  Deno.test(`core ops reproduce PETRA's /forward and /sensitivity answers (${name})`, async (t) => {
    const dir = new URL(`${name}/`, CONFORMANCE);
    const description = parseModelDescription(
      JSON.parse(await Deno.readTextFile(new URL("model.json", dir))),
    );
    const files = await compileBundle(description, {});
    await using model = await loadBundle(ORT, {
      onnx: files.onnx,
      sidecar: files.sidecar,
      onnxName: `${name}.onnx`,
      sidecarName: `${name}.onnx.meta.json`,
    });
    const sources = new Set(model.structure.sourcePlaces);
    const lines = (await Deno.readTextFile(new URL("exchanges.jsonl", dir))).trim().split("\n");
    let replayed = 0;
    for (const line of lines) {
      const e: Exchange = JSON.parse(line);
      const numeric = e.expect.compare === "exact" || e.expect.compare === "sensitivity";
      if (!e.body || e.expect.status !== 200 || !numeric) continue;
      if (e.path !== "/forward" && e.path !== "/sensitivity") continue;
      const want = (e.expect.response ?? e.petra.response)!;
      const request = {
        input_marking: idMap(e.body.input_marking),
        input_values: e.body.input_values ? idMap(e.body.input_values) : null,
      };
      await t.step(`exchange ${e.i} ${e.path}`, async () => {
        let problems: string[];
        if (e.path === "/forward") {
          const got = await forward(model, request);
          problems = [
            ...compareMaps(
              "transition",
              got.transition_activations,
              want.transition_activations as Record<string, number>,
            ),
            ...compareMaps(
              "place",
              got.place_activations,
              want.place_activations as Record<string, number>,
            ),
          ];
        } else {
          const got = await sensitivity(model, {
            ...request,
            target_transition: e.body!.target_transition as string,
          });
          problems = [
            ...(close(got.base_activation, want.base_activation as number)
              ? []
              : [`base_activation: ${got.base_activation} vs PETRA ${want.base_activation}`]),
            ...compareMaps(
              "marking_gradients",
              got.marking_gradients,
              want.marking_gradients as Record<string, number>,
              1e-4,
            ),
            ...compareMaps(
              "value_gradients",
              got.value_gradients,
              want.value_gradients as Record<string, number>,
              1e-4,
            ),
          ];
          for (
            const [field, map] of [["marking_gradients", got.marking_gradients], [
              "value_gradients",
              got.value_gradients,
            ]] as const
          ) {
            const petraKeys = new Set(Object.keys(want[field] as object));
            for (const id of map.keys()) {
              if (!petraKeys.has(id) && !sources.has(id)) {
                problems.push(`${field} has extra key ${id}`);
              }
            }
          }
        }
        if (problems.length > 0) {
          throw new Error(`exchange ${e.i} ${JSON.stringify(e.body)}:\n  ${problems.join("\n  ")}`);
        }
      });
      replayed++;
    }
    if (replayed < 30) throw new Error(`only ${replayed} exchanges replayed for ${name}`);
  });
}
