/**
 * A 422 is bounded: at most `MAX_ISSUES` issues and a last `too_many_issues` entry when the body
 * holds more, and never much larger than the body it answers (its echoed inputs are dropped,
 * largest first, past the body's size), whatever a hostile body holds.
 *
 * @module
 */

import assert from "node:assert/strict";
import { createApp } from "../../server/app.ts";
import { MAX_ISSUES } from "../../core/schemas/parse.ts";
import { openModel, xorDescription } from "./models.ts";

/** A JSON body of just under `bytes`: `count` events `1`, then `{"kN":[]}` attributes. */
function hostileAnomaly(bytes: number, count: number): string {
  let text = `{"input_marking":{},"events":[${Array(count).fill(1).join(",")}],"attributes":{`;
  for (let k = 0; text.length < bytes - 16; k++) text += `${k === 0 ? "" : ","}"k${k}":[]`;
  return text + "}}";
}

Deno.test("a 1 MiB /anomaly body of ~200,000 issues is answered with a 422 of 20 issues and a note", async () => {
  await using model = await openModel(xorDescription());
  const app = await createApp(model);
  const body = hostileAnomaly(1 << 20, 99_999);
  const response = await app.fetch(
    new Request("http://localhost/anomaly", { method: "POST", body }),
  );
  assert.equal(response.status, 422);
  const text = await response.text();
  assert.ok(text.length <= body.length, `${text.length} bytes answer a ${body.length}-byte body`);
  const { detail } = JSON.parse(text);
  assert.equal(detail.length, MAX_ISSUES + 1);
  assert.deepEqual(detail.slice(0, 2).map((issue: { loc: unknown }) => issue.loc), [
    ["body", "events", 0],
    ["body", "events", 1],
  ]);
  assert.equal(detail.at(-1).type, "too_many_issues");
});

Deno.test("an issue past the first entries of a list is still found, and a body with few issues lists them all", async () => {
  await using model = await openModel(xorDescription());
  const app = await createApp(model);
  const events = Array.from({ length: 500 }, () => ({ name: "a" }));
  events[450] = { name: 7 } as unknown as { name: string };
  const late = await app.fetch(
    new Request("http://localhost/anomaly", {
      method: "POST",
      body: JSON.stringify({ input_marking: {}, events }),
    }),
  );
  assert.equal(late.status, 422);
  const { detail } = await late.json();
  assert.deepEqual(detail.map((issue: { loc: unknown }) => issue.loc), [
    ["body", "events", 450, "name"],
  ]);
});

Deno.test("a 422 whose echoed inputs would outgrow the body drops them, largest first", async () => {
  await using model = await openModel(xorDescription());
  const app = await createApp(model);
  // The wrong type at the root of a large object: its echo alone is the body's size, and the
  // missing field's echo is the whole body again.
  const big = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`p${i}`, "x"]));
  const body = JSON.stringify({ input_marking: [big], flip_place: 3 });
  const response = await app.fetch(
    new Request("http://localhost/counterfactual", { method: "POST", body }),
  );
  assert.equal(response.status, 422);
  const text = await response.text();
  assert.ok(
    text.length <= body.length + 4096,
    `${text.length} bytes for a ${body.length}-byte body`,
  );
  const { detail } = JSON.parse(text);
  assert.ok(detail.some((issue: { input?: unknown }) => !("input" in issue)));
});
