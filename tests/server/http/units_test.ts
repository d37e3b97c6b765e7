/**
 * The functions and classes of `server/http/` one at a time, each on the case its
 * documentation names.
 *
 * @module
 */

import assert from "node:assert/strict";
import {
  compressible,
  compressResponse,
  negotiateEncoding,
} from "../../../server/http/compression.ts";
import { checkOrigins, Cors } from "../../../server/http/cors.ts";
import { cspHash, pagePolicy } from "../../../server/http/csp.ts";
import { errorResponse, HttpError, ValidationError } from "../../../server/http/errors.ts";
import { RequestError } from "../../../core/ops/errors.ts";
import { escapeHtml } from "../../../server/http/escape_html.ts";
import { withoutBody } from "../../../server/http/head.ts";
import { jsonResponse, streamedJsonResponse } from "../../../server/http/json.ts";
import { requestIdOf } from "../../../server/http/request_id.ts";
import { hostName } from "../../../server/http/request_path.ts";
import { addVary, withHeaders } from "../../../server/http/response_headers.ts";
import { REVALIDATE, StaticAsset } from "../../../server/http/static_asset.ts";

Deno.test("compression.ts: negotiateEncoding", () => {
  assert.equal(negotiateEncoding("gzip;q=1.0, br;q=0", ["br", "gzip"]), "gzip");
  assert.equal(negotiateEncoding("*", ["br", "gzip"]), "br");
  assert.equal(negotiateEncoding(null, ["gzip"]), undefined);
  assert.equal(negotiateEncoding("identity", ["gzip"]), undefined);
});

Deno.test("compression.ts: compressible", () => {
  assert.equal(compressible("application/json"), true);
  assert.equal(compressible("text/plain; version=0.0.4; charset=utf-8"), true);
  assert.equal(compressible("image/png"), false);
});

Deno.test("compression.ts: compressResponse", async () => {
  const request = new Request("http://localhost/x", { headers: { "accept-encoding": "gzip" } });
  const big = await compressResponse(request, Response.json({ text: "x".repeat(50_000) }));
  assert.equal(big.headers.get("content-encoding"), "gzip");
  assert.equal(big.headers.get("vary"), "accept-encoding");
  const small = await compressResponse(request, Response.json({ ok: true }));
  assert.equal(small.headers.get("content-encoding"), null);
  assert.deepEqual(await small.json(), { ok: true });
});

Deno.test("cors.ts: checkOrigins", () => {
  assert.deepEqual(checkOrigins(["https://app.example", "*"]), ["https://app.example", "*"]);
  assert.throws(() => checkOrigins(["https://app.example/"]), /not an origin/);
});

Deno.test("cors.ts: preflight", () => {
  const cors = new Cors(["https://app.example"]);
  const other = cors.preflight(
    new Request("http://localhost/forward", {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
    }),
  )!;
  assert.equal(other.status, 403);
  assert.equal(cors.preflight(new Request("http://localhost/forward")), undefined);
});

Deno.test("cors.ts: apply", () => {
  const cors = new Cors(["*"]);
  const request = new Request("http://localhost/healthz", {
    headers: { origin: "https://app.example" },
  });
  const response = cors.apply(request, Response.json({}));
  assert.equal(response.headers.get("access-control-allow-origin"), "*");
  assert.equal(response.headers.get("access-control-expose-headers"), "x-request-id, retry-after");
});

Deno.test("csp.ts: cspHash", async () => {
  assert.equal(await cspHash(""), "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='");
});

Deno.test("csp.ts: pagePolicy", () => {
  assert.equal(
    pagePolicy({ img: ["'self'"] }),
    "default-src 'none'; img-src 'self'; base-uri 'none'; form-action 'none'; " +
      "frame-ancestors 'none'; object-src 'none'",
  );
});

Deno.test("errors.ts: HttpError", async () => {
  const response = errorResponse(
    new HttpError(405, "Method Not Allowed", { allow: "POST" }),
    () => {},
  );
  assert.equal(response.status, 405);
  assert.equal(response.headers.get("allow"), "POST");
  assert.deepEqual(await response.json(), { detail: "Method Not Allowed" });
});

Deno.test("errors.ts: ValidationError", () => {
  const error = new ValidationError([{ type: "missing", loc: ["body"], msg: "Field required" }]);
  assert.equal(error.message, "The request body is invalid: Field required");
});

Deno.test("errors.ts: errorResponse", async () => {
  const response = errorResponse(
    new RequestError("flip_place 'p_x' is not in the net's place set"),
    () => {},
  );
  assert.equal(response.status, 400);
  assert.deepEqual(await response.json(), {
    detail: "flip_place 'p_x' is not in the net's place set",
  });
  // Anything else is logged once and answered with a bare 500.
  const logged: unknown[] = [];
  const failure = errorResponse(new Error("boom"), (error) => logged.push(error));
  assert.deepEqual([failure.status, await failure.json(), logged.length], [500, {
    detail: "Internal Server Error",
  }, 1]);
});

Deno.test("escape_html.ts: escapeHtml", () => {
  assert.equal(escapeHtml("a < b"), "a &lt; b");
});

Deno.test("head.ts: withoutBody", async () => {
  const stream = new Blob(["abc"]).stream();
  const head = await withoutBody(new Response(stream, { status: 201 }));
  assert.equal(head.status, 201);
  assert.equal(head.headers.get("content-length"), "3");
});

Deno.test("json.ts: jsonResponse", () => {
  const response = jsonResponse(404, { detail: "Not Found" });
  assert.deepEqual(response.headers.get("content-type"), "application/json");
  assert.equal(response.headers.get("content-length"), "22");
});

Deno.test("json.ts: streamedJsonResponse", async () => {
  const response = streamedJsonResponse(200, { data: new Float32Array(20_000).fill(0.5) });
  const answer = await response.json();
  assert.equal(answer.data.length, 20_000);
  assert.equal(response.headers.get("content-type"), "application/json");
});

Deno.test("request_id.ts: requestIdOf", () => {
  const hostile = new Request("http://localhost/", {
    headers: { "x-request-id": 'a" injected=1' },
  });
  assert.notEqual(requestIdOf(hostile), 'a" injected=1');
  const long = new Request("http://localhost/", { headers: { "x-request-id": "a".repeat(129) } });
  assert.equal(requestIdOf(long).length, 36);
});

Deno.test("request_path.ts: hostName", () => {
  assert.deepEqual([hostName("LocalHost:8000"), hostName("[::1]:80"), hostName("a.b")], [
    "localhost",
    "[::1]",
    "a.b",
  ]);
});

Deno.test("response_headers.ts: withHeaders", () => {
  const response = withHeaders(Response.json({}), { "x-request-id": "abc" });
  assert.equal(response.headers.get("x-request-id"), "abc");
});

Deno.test("response_headers.ts: addVary", () => {
  assert.equal(addVary("Origin", "accept-encoding"), "Origin, accept-encoding");
  assert.equal(addVary("origin, Accept-Encoding", "accept-encoding"), "origin, Accept-Encoding");
  assert.equal(addVary("*", "origin"), "*");
});

Deno.test("static_asset.ts: respond", async () => {
  const asset = new StaticAsset({
    contentType: "text/css",
    cacheControl: REVALIDATE,
    read: () => Promise.resolve("body { margin: 0 }\n".repeat(500)),
  });
  const response = await asset.respond(
    new Request("http://localhost/s.css", { headers: { "accept-encoding": "gzip" } }),
  );
  assert.equal(response.headers.get("content-encoding"), "gzip");
  assert.equal(response.headers.get("vary"), "accept-encoding");
  const text = await new Response(response.body!.pipeThrough(new DecompressionStream("gzip")))
    .text();
  assert.equal(text.length, 9500);
});
