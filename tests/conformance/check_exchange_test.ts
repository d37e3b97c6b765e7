/**
 * The conformance checker catches wrong answers (so a green replay means something).
 *
 * @module
 */

import { deepEqual, equal, ok } from "node:assert/strict";
import { checkExchange, type Exchange, exchangeRequest } from "./check_exchange.ts";

const context = { sourcePlaces: new Set(["p_in"]) };
const answer = (status: number, body: unknown, type = "application/json") =>
  new Response(typeof body === "string" ? body : JSON.stringify(body), {
    status,
    headers: { "content-type": type },
  });
const check = (exchange: Exchange, response: Response) =>
  checkExchange(exchange, response, context);

const exact: Exchange = {
  i: 1,
  method: "POST",
  path: "/forward",
  body: { input_marking: {} },
  petra: { status: 200, response: { a: { x: 0.5, y: 1 }, version: "9" } },
  expect: { status: 200, compare: "exact", ignore: ["version"] },
};

Deno.test("checkExchange() 'exact' compares keys and numbers within 1e-5", async () => {
  deepEqual(await check(exact, answer(200, { a: { y: 1.000001, x: 0.5 }, version: "1" })), []);
  equal((await check(exact, answer(200, { a: { x: 0.5001, y: 1 } }))).length, 1);
  equal((await check(exact, answer(200, { a: { x: 0.5, y: 1, z: 2 } }))).length, 1);
  equal((await check(exact, answer(201, { a: { x: 0.5, y: 1 } }))).length, 1);
  equal((await check(exact, answer(200, { a: { x: 0.5, y: 1 } }, "text/plain"))).length, 1);
});

const counterfactual: Exchange = {
  i: 2,
  method: "POST",
  path: "/counterfactual",
  body: { input_marking: { p_in: 0 }, flip_place: "p_in", target_transition: "t_a" },
  petra: {
    status: 200,
    response: {
      found: true,
      target_transition: "t_a",
      target_label: "A",
      flipped_place: "p_in",
      flipped_channel: "marking",
      original_input: 0,
      counterfactual_input: 0.2998046875,
      original_activation: 0.083,
      counterfactual_activation: 0.4996,
    },
  },
  expect: { status: 200, compare: "counterfactual", compare_original_input: true },
};
const found = { ...(counterfactual.petra.response as object) };

Deno.test("checkExchange() 'counterfactual' applies D2, D3 and D6", async () => {
  deepEqual(await check(counterfactual, answer(200, { ...found, counterfactual_input: 0.3 })), []);
  ok((await check(counterfactual, answer(200, { ...found, counterfactual_input: 0.4 }))).length);
  ok(
    (await check(counterfactual, answer(200, { ...found, counterfactual_activation: 0.45 })))
      .length,
  );
  ok((await check(counterfactual, answer(200, { ...found, original_input: 1 }))).length);
  // PETRA's answer was on the boundary: ours may not be "not found"
  ok((await check(counterfactual, answer(200, { found: false, target_transition: "t_a" }))).length);
  // D6: nothing but found and target_transition
  const notFound = {
    ...counterfactual,
    petra: {
      status: 200,
      response: { found: false, target_transition: "t_a", target_label: null },
    },
  };
  deepEqual(await check(notFound, answer(200, { found: false, target_transition: "t_a" })), []);
  ok(
    (await check(notFound, answer(200, { found: false, target_transition: "t_a", x: null })))
      .length,
  );
});

Deno.test("checkExchange() 'counterfactual' counts a decision flip as found", async () => {
  // PETRA on the triage STE model: the activation jumps from 0 to 1 at 0.7979 (issue 12).
  const jump = {
    ...found,
    counterfactual_input: 0.797882080078125,
    original_activation: 0,
    counterfactual_activation: 1,
  };
  const exchange: Exchange = { ...counterfactual, petra: { status: 200, response: jump } };
  deepEqual(await check(exchange, answer(200, { ...jump, counterfactual_input: 0.7978816 })), []);
  // Not found is wrong where PETRA's answer moved across 0.5.
  ok((await check(exchange, answer(200, { found: false, target_transition: "t_a" }))).length);
  // A found answer on the original's side of 0.5, outside tolerance, is no boundary.
  ok((await check(exchange, answer(200, { ...jump, counterfactual_activation: 0 }))).length);
  ok((await check(exchange, answer(200, { ...jump, counterfactual_activation: 0.4 }))).length);
  // PETRA's "found" that neither reached 0.5 nor crossed it (1.0 -> 1.0): ours may say none.
  const stay = { ...jump, original_activation: 1, counterfactual_activation: 1 };
  const stayed: Exchange = { ...counterfactual, petra: { status: 200, response: stay } };
  deepEqual(await check(stayed, answer(200, { found: false, target_transition: "t_a" })), []);
});

Deno.test("checkExchange() 'sensitivity' allows extra source places only", async () => {
  const exchange: Exchange = {
    i: 3,
    method: "POST",
    path: "/sensitivity",
    body: { input_marking: { p_a: 0.3 }, target_transition: "t_a" },
    petra: {
      status: 200,
      response: {
        target_transition: "t_a",
        target_label: "A",
        base_activation: 0.5,
        marking_gradients: { p_a: 2 },
        value_gradients: {},
      },
    },
    expect: { status: 200, compare: "sensitivity" },
  };
  const ours = {
    target_transition: "t_a",
    target_label: "A",
    base_activation: 0.5,
    marking_gradients: { p_a: 2.0001, p_in: 1 },
    value_gradients: { p_in: 0 },
  };
  deepEqual(await check(exchange, answer(200, ours)), []);
  const extra = { ...ours, value_gradients: { p_x: 0 } };
  equal((await check(exchange, answer(200, extra))).length, 1);
  const missing = { ...ours, marking_gradients: { p_in: 1 } };
  equal((await check(exchange, answer(200, missing))).length, 1);
});

Deno.test("checkExchange() 'detail-ids' and 'validation'", async () => {
  const ids: Exchange = {
    i: 4,
    method: "POST",
    path: "/forward",
    body: {},
    petra: { status: 200 },
    expect: { status: 400, compare: "detail-ids", ids: { input_marking: ["p_x", "it's"] } },
  };
  const detail = "input_marking has ids that are not in the net's place set: \"it's\", 'p_x'";
  deepEqual(await check(ids, answer(400, { detail })), []);
  equal((await check(ids, answer(400, { detail: "input_marking: p_x, it's" }))).length, 2);
  const validation: Exchange = { ...ids, expect: { status: 422, compare: "validation" } };
  deepEqual(
    await check(validation, answer(422, { detail: [{ loc: ["body"], msg: "m", type: "t" }] })),
    [],
  );
  equal((await check(validation, answer(422, { detail: [] }))).length, 1);
  equal((await check(validation, answer(422, { detail: "bad" }))).length, 1);
});

Deno.test("exchangeRequest() sends body, body_raw and the content type", async () => {
  const raw = exchangeRequest(
    { ...exact, body: undefined, body_raw: "not json", request_content_type: "text/plain" },
    "http://localhost:8000",
  )!;
  equal(raw.url, "http://localhost:8000/forward");
  equal(raw.headers.get("content-type"), "text/plain");
  equal(await raw.text(), "not json");
  const json = exchangeRequest(exact, "http://localhost")!;
  equal(json.headers.get("content-type"), "application/json");
  equal(await json.text(), '{"input_marking":{}}');
  equal(exchangeRequest({ ...exact, expect: { compare: "skip" } }, "http://localhost"), undefined);
});
