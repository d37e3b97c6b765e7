/**
 * Conformance of `core/ops` without HTTP, as the playground calls them: every recorded POST
 * exchange with a JSON body (/forward, /anomaly, /counterfactual, /sensitivity) is validated
 * with `core/schemas`, run through its operation on a compiled conformance bundle, framed as
 * the answer the server would give (200 with the result, 400 with a `RequestError`'s detail,
 * 422 with the validation issues) and checked by the exchange's own rule.
 *
 * @module
 */

import assert from "node:assert/strict";
import { compileBundle, loadBundle } from "../../../core/bundle/mod.ts";
import { stringifyJson } from "../../../core/ops/json.ts";
import { parseModelDescription } from "../../../core/net/parse.ts";
import { anomaly } from "../../../core/ops/anomaly.ts";
import { counterfactual } from "../../../core/ops/counterfactual.ts";
import { RequestError } from "../../../core/ops/errors.ts";
import { forward } from "../../../core/ops/forward.ts";
import type { OpsModel } from "../../../core/ops/model.ts";
import { sensitivity } from "../../../core/ops/sensitivity.ts";
import { loadSchemas, type RequestKind, type Schemas } from "../../../core/schemas/mod.ts";
import {
  checkExchange,
  describeExchange,
  readExchanges,
} from "../../conformance/check_exchange.ts";
import { ORT } from "../../ort.ts";
import { CONFORMANCE, RECORDED_MODELS } from "../../conformance/fixtures.ts";

// deno-lint-ignore no-explicit-any
const OPERATIONS: Record<RequestKind, (model: OpsModel, request: any) => Promise<unknown>> = {
  forward,
  anomaly,
  counterfactual,
  sensitivity,
};

/** The answer the server would give for `body` on `kind`, built from core alone. */
async function answer(
  schemas: Schemas,
  model: OpsModel,
  kind: RequestKind,
  body: unknown,
): Promise<Response> {
  const respond = (status: number, value: unknown) =>
    new Response(stringifyJson(value), {
      status,
      headers: { "content-type": "application/json" },
    });
  const parsed = schemas.parseRequest(kind, body);
  if (!parsed.success) return respond(422, { detail: parsed.issues });
  try {
    return respond(200, await OPERATIONS[kind](model, parsed.data));
  } catch (error) {
    if (error instanceof RequestError) return respond(400, { detail: error.detail });
    throw error;
  }
}

const schemas = await loadSchemas();

for (const name of RECORDED_MODELS) {
  Deno.test(`core ops answer every recorded POST exchange of ${name}`, async (t) => {
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
    const context = { sourcePlaces: new Set(model.structure.sourcePlaces) };
    const replayed = new Map<string, number>();
    for (const exchange of await readExchanges(dir)) {
      const kind = exchange.path.slice(1) as RequestKind;
      const json = exchange.method === "POST" && kind in OPERATIONS && exchange.body !== undefined;
      if (!json || exchange.expect.compare === "skip") continue;
      await t.step(describeExchange(exchange), async () => {
        const response = await answer(schemas, model, kind, exchange.body);
        const problems = await checkExchange(exchange, response, context);
        assert.deepEqual(problems, [], `${describeExchange(exchange)}\n${problems.join("\n")}`);
      });
      replayed.set(kind, (replayed.get(kind) ?? 0) + 1);
    }
    for (const kind of Object.keys(OPERATIONS)) {
      assert.ok(
        (replayed.get(kind) ?? 0) >= 5,
        `only ${replayed.get(kind) ?? 0} ${kind} exchanges`,
      );
    }
  });
}
