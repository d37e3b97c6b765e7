import assert from "node:assert/strict";
import * as z from "zod";
import { createSchemas } from "../../core/schemas/mod.ts";
import { browserSchemas, ZOD_MEMBERS } from "../../web/schemas.ts";

const SCHEMA_SOURCES = new URL("../../core/schemas/", import.meta.url);

Deno.test("browserSchemas() lists every zod member that core/schemas calls", async () => {
  const used = new Set<string>();
  for await (const entry of Deno.readDir(SCHEMA_SOURCES)) {
    if (!entry.name.endsWith(".ts")) continue;
    const source = await Deno.readTextFile(new URL(entry.name, SCHEMA_SOURCES));
    for (const match of source.matchAll(/\bz\.([A-Za-z]+)\b/g)) used.add(match[1]!);
  }
  const missing = [...used].filter((name) => !(name in ZOD_MEMBERS)).sort();
  assert.deepEqual(missing, [], "add these to ZOD_MEMBERS in web/schemas.ts");
});

Deno.test("browserSchemas() validates requests as createSchemas(zod) does", () => {
  const page = browserSchemas();
  const full = createSchemas(z);
  const bodies: [Parameters<typeof full.parseRequest>[0], unknown][] = [
    ["forward", { input_marking: { p_submitted: 1 }, input_values: null }],
    ["forward", { input_marking: { p_submitted: "1" } }],
    ["anomaly", { input_marking: {}, events: [{ name: "approve loan", attributes: { n: 5 } }] }],
    ["anomaly", { input_marking: {}, events: "approve loan" }],
    ["counterfactual", { input_marking: {}, flip_place: "p", target_transition: "t" }],
    [
      "counterfactual",
      { input_marking: {}, flip_place: "p", target_transition: "t", search_range: [1, 0] },
    ],
    ["counterfactual", {
      input_marking: {},
      flip_place: "p",
      target_transition: "t",
      tolerance: 0,
    }],
    ["sensitivity", { input_marking: JSON.parse('{"__proto__": 0.5}') }],
    ["sensitivity", { input_marking: {}, target_transition: "t_approve" }],
  ];
  for (const [kind, body] of bodies) {
    assert.deepEqual(page.parseRequest(kind, body), full.parseRequest(kind, body), kind);
  }
});
