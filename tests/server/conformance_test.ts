/**
 * Replays every recorded exchange of tests/fixtures/conformance against `createApp` (no socket),
 * one step per exchange, and checks each answer by its `expect.compare` rule; every 200
 * answer of an operation must also match its response schema.
 *
 * @module
 */

import { fail } from "node:assert/strict";
import { netStructure } from "../../core/net/structure.ts";
import { loadSchemas } from "../../core/schemas/mod.ts";
import { createApp } from "../../server/app.ts";
import {
  checkExchange,
  describeExchange,
  exchangeRequest,
  readExchanges,
} from "../conformance/check_exchange.ts";
import { CONFORMANCE, RECORDED_MODELS } from "../conformance/fixtures.ts";
import { loadConformanceModel } from "./models.ts";

const { responses } = await loadSchemas();
const RESPONSE_SCHEMAS: Readonly<
  Record<string, { safeParse(value: unknown): { success: boolean; error?: unknown } }>
> = {
  "/healthz": responses.health,
  "/schema": responses.schema,
  "/forward": responses.forward,
  "/anomaly": responses.anomaly,
  "/counterfactual": responses.counterfactual,
  "/sensitivity": responses.sensitivity,
};

for (const name of RECORDED_MODELS) {
  Deno.test(`createApp() answers every recorded exchange of ${name}`, async (t) => {
    await using model = await loadConformanceModel(name);
    const app = await createApp(model);
    const context = { sourcePlaces: new Set(netStructure(model.net).sourcePlaces) };
    const exchanges = await readExchanges(new URL(`${name}/`, CONFORMANCE));
    for (const exchange of exchanges) {
      await t.step({
        name: describeExchange(exchange),
        ignore: exchange.expect.compare === "skip",
        fn: async () => {
          const response = await app.fetch(exchangeRequest(exchange, "http://localhost")!);
          const copy = response.clone();
          const problems = await checkExchange(exchange, response, context);
          const schema = RESPONSE_SCHEMAS[exchange.path];
          if (copy.status === 200 && schema) {
            const result = schema.safeParse(await copy.json());
            if (!result.success) problems.push(`the answer breaks its schema: ${result.error}`);
          } else {
            await copy.body?.cancel();
          }
          if (problems.length > 0) {
            fail(`${problems.join("\n")}\nexchange: ${JSON.stringify(exchange)}`);
          }
        },
      });
    }
  });
}
