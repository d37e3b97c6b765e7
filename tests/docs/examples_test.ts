/**
 * The examples in `docs/` are real: the model description of `docs/model_format.md` parses and
 * compiles, and each request shown in `docs/http_api.md` for a model endpoint, sent to the app
 * serving the embedded example model, gets the answer shown under it.
 *
 * @module
 */

import assert from "node:assert/strict";
import { compileBundle } from "../../core/bundle/mod.ts";
import { parseModelDescription } from "../../core/net/parse.ts";
import { EXAMPLE_BUNDLE_URL, readBundle } from "../../adapter/deno/bundle_files.ts";
import { createApp } from "../../server/mod.ts";
import { ORT } from "../ort.ts";

const DOCS = new URL("../../docs/", import.meta.url);

Deno.test("docs/model_format.md: the complete example parses and compiles", async () => {
  const text = await Deno.readTextFile(new URL("model_format.md", DOCS));
  const documents = jsonBlocks(text).filter((block) =>
    (block as { format?: unknown }).format === "petri-net-model/1"
  );
  assert.equal(documents.length, 1);
  const model = parseModelDescription(documents[0]);
  assert.deepEqual(model.net.places, ["p_a", "p_b", "p_in"]);
  const { onnx } = await compileBundle(model, { savedAt: new Date(0) });
  assert.ok(onnx.length > 0);
});

Deno.test("docs/http_api.md: each model endpoint's example request gets the answer shown", async (t) => {
  await using model = await readBundle(ORT, EXAMPLE_BUNDLE_URL);
  const app = await createApp(model, { version: "0.1.0" });
  const text = await Deno.readTextFile(new URL("http_api.md", DOCS));
  const sections = endpointSections(text);
  assert.deepEqual(
    sections.map((s) => s.route),
    [
      "GET /healthz",
      "GET /readyz",
      "GET /schema",
      "POST /forward",
      "POST /anomaly",
      "POST /counterfactual",
      "POST /sensitivity",
    ],
  );
  for (const { route, blocks } of sections) {
    const [method, path] = route.split(" ") as [string, string];
    // /readyz shows its answer in prose; the others show request and answer blocks.
    if (path === "/readyz") continue;
    await t.step(route, async () => {
      const [request, expected] = method === "GET" ? [undefined, blocks[0]] : blocks;
      assert.ok(expected !== undefined, `${route} shows no answer`);
      const response = await app.fetch(
        new Request(`http://localhost${path}`, {
          method,
          ...(request === undefined ? {} : { body: JSON.stringify(request) }),
        }),
      );
      assert.equal(response.status, 200);
      assertClose(await response.json(), expected, route);
    });
  }
});

/** The JSON code blocks of a Markdown page, parsed, in order. */
function jsonBlocks(text: string): unknown[] {
  return [...text.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!));
}

/** The `### \`METHOD /path\`` sections of the model endpoints, with their JSON blocks. */
function endpointSections(text: string): { route: string; blocks: unknown[] }[] {
  const body = text.slice(text.indexOf("## Model endpoints"), text.indexOf("\n## Errors"));
  return body.split(/^### /m).slice(1).map((section) => ({
    route: section.slice(0, section.indexOf("\n")).replaceAll("`", "").trim(),
    blocks: jsonBlocks(section),
  }));
}

/** Equal JSON; numbers within 1e-6 (relative above 1): a float32 ulp may move after a recompile. */
function assertClose(actual: unknown, expected: unknown, where: string): void {
  if (typeof expected === "number") {
    assert.equal(typeof actual, "number", where);
    const tolerance = 1e-6 * Math.max(1, Math.abs(expected));
    assert.ok(Math.abs((actual as number) - expected) <= tolerance, `${where}: ${actual}`);
  } else if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual), where);
    assert.equal(actual.length, expected.length, where);
    expected.forEach((e, i) => assertClose(actual[i], e, `${where}[${i}]`));
  } else if (typeof expected === "object" && expected !== null) {
    assert.ok(typeof actual === "object" && actual !== null, where);
    assert.deepEqual(Object.keys(actual).sort(), Object.keys(expected).sort(), where);
    for (const [key, e] of Object.entries(expected)) {
      assertClose((actual as Record<string, unknown>)[key], e, `${where}.${key}`);
    }
  } else {
    assert.equal(actual, expected, where);
  }
}
