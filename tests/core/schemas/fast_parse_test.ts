/**
 * The fast path of request parsing (`parseWellFormed` in `core/schemas/parse.ts`) against the
 * general path (`parseWithZod`): on every body below and on thousands of mutations of them,
 * `parseWithSchema` gives exactly what zod alone gives (the same request with Maps in the same
 * key order, or the same issues), and the fast path answers every valid body and steps aside
 * for every invalid one.
 *
 * @module
 */

import { deepStrictEqual, equal, ok } from "node:assert/strict";
import * as z from "zod";
import { createSchemas } from "../../../core/schemas/mod.ts";
import { parseWellFormed, parseWithSchema, parseWithZod } from "../../../core/schemas/parse.ts";
import { OPERATIONS } from "../../../core/ops/operations.ts";
import { EXAMPLE_BODIES } from "../../../bench/http_load.ts";

const schemas = createSchemas(z, OPERATIONS);
type Kind = keyof typeof schemas.requests;

/** `value` with Maps, objects and arrays spelled out in their iteration order. */
function ordered(value: unknown): unknown {
  if (value instanceof Map) return ["Map", [...value].map(([k, v]) => [k, ordered(v)])];
  if (Array.isArray(value)) return ["Array", value.map(ordered)];
  if (typeof value === "object" && value !== null) {
    return ["Object", Object.entries(value).map(([k, v]) => [k, ordered(v)])];
  }
  return Object.is(value, -0) ? "-0" : value;
}

function same(kind: Kind, body: unknown): { valid: boolean; fast: boolean } {
  const schema = schemas.requests[kind];
  const general = parseWithZod(schema, body);
  const combined = parseWithSchema(schema, body);
  deepStrictEqual(ordered(combined), ordered(general), `${kind}: ${JSON.stringify(body)}`);
  const fast = parseWellFormed(schema, body);
  if (fast !== undefined) {
    ok(general.success, `fast path accepted an invalid ${kind} body: ${JSON.stringify(body)}`);
    deepStrictEqual(ordered(fast), ordered(general));
  }
  return { valid: general.success, fast: fast !== undefined };
}

const VALID: [Kind, string][] = [
  ...Object.entries(EXAMPLE_BODIES).flatMap(([kind, bodies]) =>
    bodies.map((body): [Kind, string] => [kind as Kind, body])
  ),
  ["forward", '{"input_marking":{}}'],
  ["forward", '{"input_marking":{"p":0},"input_values":null}'],
  ["forward", '{"input_marking":{"__proto__":0.5,"constructor":1,"2":3,"1":-0},"x":[1]}'],
  ["forward", '{"input_values":{"__proto__":2},"input_marking":{"b":1e-300,"a":3.4028235e38}}'],
  ["forward", '{"input_marking":{"p":1},"extra":{"nested":{"deep":true}}}'],
  ["anomaly", '{"input_marking":{},"events":[]}'],
  ["anomaly", '{"input_marking":{},"events":[{"name":"a"},{"name":"b","attributes":{}}]}'],
  [
    "anomaly",
    '{"input_marking":{"p":1},"events":[{"name":"a","attributes":{"x":true,"y":1.5,"z":"s"}}],' +
    '"attributes":{"__proto__":"p","n":0}}',
  ],
  ["counterfactual", '{"input_marking":{},"flip_place":"p","target_transition":"t"}'],
  [
    "counterfactual",
    '{"input_marking":{},"flip_place":"p","target_transition":"t","flip_channel":"marking",' +
    '"search_range":[-1,1],"tolerance":1e-9}',
  ],
  ["sensitivity", '{"input_marking":{"p":0},"target_transition":"t","input_values":{}}'],
];

const INVALID: [Kind, string][] = [
  ["forward", "{}"],
  ["forward", "[]"],
  ["forward", "null"],
  ["forward", '"text"'],
  ["forward", '{"input_marking":{"p":"1"}}'],
  ["forward", '{"input_marking":[1]}'],
  ["forward", '{"input_marking":null}'],
  ["forward", '{"input_marking":{"p":null}}'],
  ["forward", '{"input_marking":{},"input_values":{"p":true}}'],
  ["forward", '{"input_marking":{},"input_values":[]}'],
  ["forward", '{"input_marking":{"__proto__":"x"}}'],
  ["forward", '{"input_marking":{"p":3.5e38}}'],
  ["forward", '{"input_marking":{},"input_values":{"__proto__":-1e300}}'],
  ["anomaly", '{"input_marking":{}}'],
  ["anomaly", '{"input_marking":{},"events":{}}'],
  ["anomaly", '{"input_marking":{},"events":[{}]}'],
  ["anomaly", '{"input_marking":{},"events":[{"name":1}]}'],
  ["anomaly", '{"input_marking":{},"events":[{"name":"a","attributes":{"x":null}}]}'],
  ["anomaly", '{"input_marking":{},"events":[{"name":"a","attributes":{"x":{}}}]}'],
  ["anomaly", '{"input_marking":{},"events":[],"attributes":[]}'],
  ["counterfactual", '{"input_marking":{},"flip_place":"p"}'],
  [
    "counterfactual",
    '{"input_marking":{},"flip_place":"p","target_transition":"t",' +
    '"flip_channel":"values"}',
  ],
  [
    "counterfactual",
    '{"input_marking":{},"flip_place":"p","target_transition":"t",' +
    '"flip_channel":"constructor"}',
  ],
  [
    "counterfactual",
    '{"input_marking":{},"flip_place":"p","target_transition":"t",' +
    '"search_range":[1,0]}',
  ],
  [
    "counterfactual",
    '{"input_marking":{},"flip_place":"p","target_transition":"t",' +
    '"search_range":[0]}',
  ],
  [
    "counterfactual",
    '{"input_marking":{},"flip_place":"p","target_transition":"t",' +
    '"tolerance":0}',
  ],
  ["sensitivity", '{"input_marking":{},"target_transition":null}'],
  ["sensitivity", '{"input_marking":{},"target_transition":["t"]}'],
];

Deno.test("the fast path answers every valid body exactly as zod does", () => {
  for (const [kind, text] of VALID) {
    const { valid, fast } = same(kind, JSON.parse(text));
    ok(valid, `${kind} ${text} should be valid`);
    ok(fast, `${kind} ${text} should take the fast path`);
  }
});

Deno.test("the fast path steps aside for invalid bodies: zod's issues are answered", () => {
  for (const [kind, text] of INVALID) {
    const { valid, fast } = same(kind, JSON.parse(text));
    equal(valid, false, `${kind} ${text} should be invalid`);
    equal(fast, false);
  }
});

/** A small deterministic generator (the same mutations on every run). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const REPLACEMENTS: unknown[] = [
  null,
  0,
  -0,
  1.5,
  "1",
  "",
  "marking",
  "value",
  true,
  false,
  [],
  [0, 1],
  [1, 0],
  {},
  { p: 1 },
  { __proto__: null, x: "y" },
];

/** Every path to a value inside `value` (the root included). */
function paths(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  const out = [at];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...paths(v, [...at, i])));
  else if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) out.push(...paths(v, [...at, k]));
  }
  return out;
}

function mutate(body: unknown, next: () => number): unknown {
  const copy = JSON.parse(JSON.stringify(body));
  const all = paths(copy).filter((p) => p.length > 0);
  if (all.length === 0) return copy;
  const path = all[Math.floor(next() * all.length)]!;
  type Node = Record<string | number, unknown>;
  const parent = path.slice(0, -1).reduce((o: Node, k) => o[k] as Node, copy as Node);
  const key = path[path.length - 1]!;
  const choice = next();
  if (choice < 0.25 && !Array.isArray(parent)) delete parent[key];
  else if (choice < 0.35 && !Array.isArray(parent)) parent[`${key}_extra`] = parent[key];
  else {
    parent[key] = structuredClone(REPLACEMENTS[Math.floor(next() * REPLACEMENTS.length)]);
  }
  return copy;
}

Deno.test("on 6,000 mutated bodies, parseWithSchema equals zod alone", () => {
  const next = random(21);
  let fast = 0;
  let invalid = 0;
  for (let i = 0; i < 6000; i++) {
    const [kind, text] = VALID[Math.floor(next() * VALID.length)]!;
    let body = JSON.parse(text);
    const rounds = 1 + Math.floor(next() * 3);
    for (let r = 0; r < rounds; r++) body = mutate(body, next);
    const result = same(kind, body);
    if (result.fast) fast++;
    if (!result.valid) invalid++;
    // Every valid body takes the fast path.
    equal(result.fast, result.valid, `${kind}: ${JSON.stringify(body)}`);
  }
  // Both kinds are well represented.
  ok(fast > 500 && invalid > 500, `fast ${fast}, invalid ${invalid}`);
});
