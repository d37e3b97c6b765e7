/**
 * `/openapi.json` (OpenAPI 3.1 from the zod schemas) and `/docs` (our page running Swagger UI
 * from swagger-ui-dist's files, served on our origin).
 *
 * @module
 */

import { deepEqual, equal, ok } from "node:assert/strict";
import { loadSchemas } from "../../../core/schemas/mod.ts";
import { createApp } from "../../../server/app.ts";
import { get } from "../http.ts";
import { openModel, xorDescription } from "../models.ts";

const OPERATIONS = [
  ["/healthz", "get", undefined, "HealthResponse"],
  ["/schema", "get", undefined, "SchemaResponse"],
  ["/forward", "post", "ForwardRequest", "ForwardResponse"],
  ["/anomaly", "post", "AnomalyRequest", "AnomalyResponse"],
  ["/counterfactual", "post", "CounterfactualRequest", "CounterfactualResponse"],
  ["/sensitivity", "post", "SensitivityRequest", "SensitivityResponse"],
] as const;

/**
 * Every other route, documented after the six operations, in the route table's order; this app
 * mounts nothing, so the playground's route is not among them.
 */
const SERVING_PATHS = [
  "/batch",
  "/readyz",
  "/metrics",
  "/",
  "/favicon.ico",
  "/openapi.json",
  "/docs",
  "/redoc",
  "/docs/{file}",
  "/redoc/{file}",
  "/v2/health/live",
  "/v2/health/ready",
  "/v2",
  "/v2/models/{name}",
  "/v2/models/{name}/ready",
  "/v2/models/{name}/versions/{version}",
  "/v2/models/{name}/versions/{version}/ready",
  "/v2/models/{name}/infer",
  "/v2/models/{name}/versions/{version}/infer",
];

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

Deno.test("/openapi.json documents the six operations, their bodies and errors", async () => {
  await using model = await openModel(xorDescription());
  const app = await createApp(model, {
    title: "Loans",
    version: "1.2.3",
    description: "About",
    maxBodyBytes: 5000,
  });
  const { status, body: doc } = await get(app, "/openapi.json");
  equal(status, 200);
  equal(doc.openapi, "3.1.0");
  deepEqual(doc.info, {
    title: "Loans",
    version: "1.2.3",
    description: "About",
    license: { name: "MIT License", identifier: "MIT" },
    contact: { name: "petri-serve authors" },
  });
  deepEqual(doc.servers, [{ url: ".", description: "This server" }]);
  deepEqual(doc.security, []);
  deepEqual(Object.keys(doc.paths), [...OPERATIONS.map(([path]) => path), ...SERVING_PATHS]);
  // Every operation has a tag the document defines, a summary and a description.
  const tags = new Set(doc.tags.map((tag: { name: string }) => tag.name));
  for (const [path, methods] of Object.entries(doc.paths) as [string, object][]) {
    for (const [method, operation] of Object.entries(methods)) {
      const where = `${method} ${path}`;
      ok(operation.tags.length > 0 && operation.tags.every((t: string) => tags.has(t)), where);
      ok(operation.summary && operation.description, where);
    }
  }
  for (const [path, method, request, response] of OPERATIONS) {
    const operation = doc.paths[path][method];
    ok(operation, `${method} ${path}`);
    deepEqual(Object.keys(doc.paths[path]), [method]);
    deepEqual(operation.responses["200"].content["application/json"].schema, ref(response));
    if (request === undefined) continue;
    equal(operation.requestBody.required, true);
    deepEqual(operation.requestBody.content["application/json"].schema, ref(request));
    deepEqual(Object.keys(operation.responses), ["200", "400", "408", "413", "422"]);
    for (const code of ["400", "408", "413"]) {
      deepEqual(operation.responses[code].content["application/json"].schema, ref("HTTPError"));
    }
    // The examples state the limits this server enforces.
    deepEqual(operation.responses["413"].content["application/json"].example, {
      detail: "The request body is larger than the limit of 5000 bytes",
    });
    deepEqual(
      operation.responses["422"].content["application/json"].schema,
      ref("HTTPValidationError"),
    );
  }
  const schemas = doc.components.schemas;
  for (const [, , request, response] of OPERATIONS) {
    if (request) ok(schemas[request], request);
    ok(schemas[response], response);
  }
  ok(schemas.TraceEvent && schemas.ValidationIssue && schemas.CounterfactualNotFound);
  const counterfactual = schemas.CounterfactualRequest.properties;
  equal(counterfactual.flip_channel.default, "marking");
  deepEqual(counterfactual.flip_channel.enum, ["marking", "value"]);
  deepEqual(counterfactual.search_range.default, [0, 1]);
  deepEqual(
    [counterfactual.search_range.minItems, counterfactual.search_range.maxItems],
    [2, 2],
  );
  // A tuple states its items too (for tools that read only `items`).
  deepEqual(counterfactual.search_range.items, { type: "number" });
  equal(counterfactual.tolerance.default, 0.001);
  equal(counterfactual.tolerance.exclusiveMinimum, 0);
  deepEqual(schemas.CounterfactualRequest.required, [
    "input_marking",
    "flip_place",
    "target_transition",
  ]);
  equal(schemas.CounterfactualNotFound.additionalProperties, false);
  for (const [name, schema] of Object.entries(schemas) as [string, Record<string, unknown>][]) {
    ok(typeof schema.description === "string", `${name} has a description`);
  }
});

Deno.test("the request examples in the OpenAPI document are valid requests", async () => {
  await using model = await openModel(xorDescription());
  const app = await createApp(model);
  const parser = await loadSchemas();
  const { schemas } = (await get(app, "/openapi.json")).body.components;
  const kinds = {
    ForwardRequest: "forward",
    AnomalyRequest: "anomaly",
    CounterfactualRequest: "counterfactual",
    SensitivityRequest: "sensitivity",
  } as const;
  for (const [name, kind] of Object.entries(kinds)) {
    const example = schemas[name].example;
    ok(example, `${name} has an example`);
    const result = parser.parseRequest(kind, example);
    ok(result.success, `${name}: ${JSON.stringify(result)}`);
  }
});

Deno.test("/docs is our page with the title and version, running Swagger UI from our origin", async () => {
  await using model = await openModel(xorDescription());
  const app = await createApp(model, { title: "PETRA test", version: "0.0.1" });
  const page = await app.fetch(new Request("http://localhost/docs"));
  equal(page.status, 200);
  equal(page.headers.get("content-type"), "text/html; charset=utf-8");
  const html = await page.text();
  ok(html.includes("<h1>PETRA test</h1>"));
  ok(html.includes("Version 0.0.1"));
  ok(html.includes('href="docs/swagger-ui.css"'));
  ok(html.includes('src="docs/swagger-ui-bundle.js"'));
  ok(html.includes('"openapi.json"'));
  ok(!/petstore/i.test(html), "no Petstore initializer");
  ok(!/https?:\/\//.test(html.replace(/<meta[^>]*>/g, "")), "no third-party URL");

  const assets = [
    ["swagger-ui.css", "text/css; charset=utf-8", ".swagger-ui"],
    ["swagger-ui-bundle.js", "text/javascript; charset=utf-8", "SwaggerUIBundle"],
  ] as const;
  for (const [name, type, marker] of assets) {
    const response = await app.fetch(new Request(`http://localhost/docs/${name}`));
    equal(response.status, 200, name);
    equal(response.headers.get("content-type"), type);
    const text = await response.text();
    ok(text.includes(marker), `${name} holds ${marker}`);
    const file = await Deno.readTextFile(new URL(import.meta.resolve(`swagger-ui-dist/${name}`)));
    equal(text, file, `${name} is swagger-ui-dist's file`);
  }
  const missing = await get(app, "/docs/swagger-initializer.js");
  equal(missing.status, 404);
});

Deno.test("/openapi.json states the per-request limits this server enforces", async () => {
  await using model = await openModel(xorDescription());
  const app = await createApp(model, {
    maxTraceEvents: 7,
    maxRequestRows: 300,
    maxResponseBytes: 9999,
  });
  const { body: doc } = await get(app, "/openapi.json");
  const anomaly = doc.paths["/anomaly"].post.responses["413"];
  equal(
    anomaly.description,
    "The body is larger than the server's limit, or the trace has more events than the limit of 7",
  );
  equal(
    doc.paths["/forward"].post.responses["413"].description,
    "The body is larger than the server's limit",
  );
  const infer = doc.paths["/v2/models/{name}/infer"].post.responses;
  deepEqual(Object.keys(infer), ["200", "400", "404", "408", "413", "422"]);
  ok(infer["413"].description.includes("limit of 300"), infer["413"].description);
  ok(infer["413"].description.includes("limit of 9999 bytes"), infer["413"].description);
  const example = infer["413"].content["application/json"].example;
  ok(example.error.startsWith("The request needs 301 model rows, more than the limit of 300"));
  ok(infer["422"].content["application/json"].example.error.includes("not a finite number"));
});
