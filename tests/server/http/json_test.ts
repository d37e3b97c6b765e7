/**
 * `stringifyJson`: Maps as objects in sorted id order, own-property safe, non-finite as null.
 *
 * @module
 */

import { deepEqual, equal, throws } from "node:assert/strict";
import { jsonResponse, stringifyJson } from "../../../server/http/json.ts";

Deno.test("stringifyJson() writes Maps with their keys sorted by code point", () => {
  const map = new Map([["p_b", 1], ["10", 2], ["9", 3], ["P", 4], ["\u{1F600}", 5], ["\uFFFF", 6]]);
  equal(stringifyJson(map), '{"10":2,"9":3,"P":4,"p_b":1,"\uFFFF":6,"\u{1F600}":5}');
});

Deno.test("stringifyJson() gives the same text for a Map in order, nearly in order or not", () => {
  const ids = ["10", "9", "P", "p_a", "p_b", "\uFFFF", "\u{1F600}"];
  const sorted = '{"10":0,"9":1,"P":2,"p_a":3,"p_b":4,"\uFFFF":5,"\u{1F600}":6}';
  const entries = ids.map((id, i): [string, number] => [id, i]);
  equal(stringifyJson(new Map(entries)), sorted);
  // Out of order at the last key only, at the first only, reversed.
  const last = [...entries.slice(0, -2), entries[6]!, entries[5]!];
  equal(stringifyJson(new Map(last)), sorted);
  equal(stringifyJson(new Map([entries[1]!, entries[0]!, ...entries.slice(2)])), sorted);
  equal(stringifyJson(new Map([...entries].reverse())), sorted);
  equal(
    stringifyJson({ a: new Map([["x", new Map([["b", 1], ["a", 2]])]]) }),
    '{"a":{"x":{"a":2,"b":1}}}',
  );
  equal(stringifyJson(new Map()), "{}");
});

Deno.test("stringifyJson() keeps __proto__ and constructor as ordinary keys", () => {
  const text = stringifyJson({ m: new Map([["__proto__", 1], ["constructor", 2]]) });
  equal(text, '{"m":{"__proto__":1,"constructor":2}}');
  const parsed = JSON.parse(text);
  deepEqual(Object.keys(parsed.m), ["__proto__", "constructor"]);
});

Deno.test("stringifyJson() writes non-finite numbers as null (D12)", () => {
  equal(stringifyJson([NaN, Infinity, -Infinity, 0.5]), "[null,null,null,0.5]");
  equal(stringifyJson(new Float32Array([Number.NaN, 0.25])), "[null,0.25]");
  equal(stringifyJson({ a: undefined, b: null, c: "x", d: true }), '{"b":null,"c":"x","d":true}');
  equal(stringifyJson(0.8320183753967285), "0.8320183753967285");
  throws(() => stringifyJson({ f: () => 1 }), /Cannot write a function as JSON/);
});

Deno.test("jsonResponse() answers application/json with extra headers", async () => {
  const response = jsonResponse(405, { detail: "Method Not Allowed" }, { allow: "POST" });
  equal(response.status, 405);
  equal(response.headers.get("content-type"), "application/json");
  equal(response.headers.get("allow"), "POST");
  deepEqual(await response.json(), { detail: "Method Not Allowed" });
});

Deno.test("jsonResponse() notes a plain answer's size in UTF-8 bytes, ASCII or not, and carries the request id", async () => {
  for (const body of [{ p_a: 0.5 }, { "é_place": 0.5, "😀": 1 }]) {
    const notes = {
      requestId: "r-1",
      responseBytes: undefined as number | undefined,
      plainResponse: undefined as Response | undefined,
      streamedResponse: undefined,
      responseSent: undefined,
    };
    const response = jsonResponse(200, body, undefined, notes);
    equal(notes.plainResponse, response);
    equal(response.headers.get("x-request-id"), "r-1");
    equal(response.headers.get("vary"), "accept-encoding");
    const bytes = new Uint8Array(await response.arrayBuffer());
    equal(notes.responseBytes, bytes.length);
    deepEqual(JSON.parse(new TextDecoder().decode(bytes)), body);
  }
});
