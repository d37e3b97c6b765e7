/**
 * HTTP as clients and operators expect it, on a real `cli.ts serve` process and raw sockets
 * (so that what crosses the wire is what is checked: lengths, encodings, headers):
 *
 * - `HEAD` answers have `GET`'s status and headers, `Content-Length` included, on every route,
 *   plain and compressed;
 * - static files have strong `ETag`s and `Last-Modified`, and answer 304 to either validator;
 *   content-hashed URLs are immutable, pages are revalidated;
 * - compressed answers (brotli and gzip, static and dynamic) decompress to the bytes sent
 *   uncompressed, and small dynamic answers are not compressed;
 * - CORS: preflights, the headers of actual answers, refused origins, off by default;
 * - `GET /`, `/favicon.ico` and `cli.ts --version`.
 *
 * @module
 */

import assert from "node:assert/strict";
import { PLAYGROUND_WASM } from "../../../web/build/mod.ts";
import { modelVersion } from "../../../core/bundle/model_version.ts";
import { runDeno } from "../../run_deno.ts";
import { complete, RawConnection, type RawResponse } from "./raw_http.ts";
import { startServerProcess } from "./server_process.ts";

const NAME = "credit_approval_coloured";
const SIDECAR = new URL(`../../../examples/${NAME}/${NAME}.onnx.meta.json`, import.meta.url);
const VERSION = modelVersion(JSON.parse(await Deno.readTextFile(SIDECAR)).onnx_sha256);
const PAGE_ORIGIN = "http://127.0.0.1:9"; // only named in --cors-origin; nothing listens there
const SERVE = ["run", "-A", "cli.ts", "serve", "--port", "0", "--access-log", "off"];

/** One request on a fresh connection. */
async function raw(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<RawResponse> {
  using connection = await RawConnection.open(port);
  return complete(await connection.request(method, path, body, headers));
}

async function decompress(bytes: Uint8Array<ArrayBuffer>, encoding: string): Promise<Uint8Array> {
  const format = encoding === "br" ? "brotli" : encoding;
  const stream = new Blob([bytes]).stream().pipeThrough(
    new DecompressionStream(format as CompressionFormat),
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Headers that legitimately differ between two answers to the same request. */
const PER_ANSWER = new Set(["date", "x-request-id"]);

function comparable(headers: ReadonlyMap<string, string>): Record<string, string> {
  return Object.fromEntries([...headers].filter(([name]) => !PER_ANSWER.has(name)).sort());
}

Deno.test("HTTP conventions of cli.ts serve on raw sockets", async (t) => {
  await using server = await startServerProcess([...SERVE, "--cors-origin", PAGE_ORIGIN]);
  const port = Number(new URL(server.origin).port);
  const main = await raw(port, "GET", "/playground/main.js");
  const chunks = [...main.body.matchAll(/"\.\/([\w.-]+\.js)"/g)].map((m) => m[1]!);
  assert.ok(chunks.length >= 2);

  await t.step(
    "HEAD has GET's status and headers, Content-Length included, on every route",
    async () => {
      const routes = [
        "/",
        "/favicon.ico",
        "/healthz",
        "/readyz",
        "/schema",
        "/openapi.json",
        "/docs",
        "/docs/swagger-ui.css",
        "/docs/swagger-ui-bundle.js",
        "/redoc",
        "/redoc/redoc.standalone.js",
        "/playground",
        "/playground/",
        "/playground/style.css",
        "/playground/main.js",
        ...chunks.map((chunk) => `/playground/${chunk}`),
        ...[...PLAYGROUND_WASM.keys()].map((name) => `/playground/ort/${name}`),
        `/playground/examples/${NAME}.onnx`,
        `/playground/examples/${NAME}.onnx.meta.json`,
        "/playground/no-such-file.js",
        "/v2",
        "/v2/",
        "/v2/health/live",
        "/v2/health/ready",
        `/v2/models/${NAME}`,
        `/v2/models/${NAME}/ready`,
        `/v2/models/${NAME}/versions/${VERSION}`,
        `/v2/models/${NAME}/versions/${VERSION}/ready`,
        "/v2/models/other",
        `/v2/models/${NAME}/infer`, // POST only: 405
        "/forward", // POST only: 405
        "/no/such/route",
      ];
      for (const path of routes) {
        for (const encoding of [undefined, "gzip", "br"]) {
          const headers: Record<string, string> = encoding ? { "accept-encoding": encoding } : {};
          const get = await raw(port, "GET", path, headers);
          const head = await raw(port, "HEAD", path, headers);
          const where = `${path} (${encoding ?? "identity"})`;
          assert.equal(head.status, get.status, where);
          if (get.status !== 308) {
            assert.equal(get.headers.get("content-length"), String(get.bytes.length), where);
          }
          assert.deepEqual(comparable(head.headers), comparable(get.headers), where);
          assert.ok(head.headers.has("x-request-id"), where);
        }
      }
      // /metrics changes between two scrapes (the first is counted): HEAD states a length, near
      // GET's, and the rest of GET's headers.
      const get = await raw(port, "GET", "/metrics");
      const head = await raw(port, "HEAD", "/metrics");
      const length = Number(head.headers.get("content-length"));
      assert.ok(Math.abs(length - get.bytes.length) < 2000, `${length} vs ${get.bytes.length}`);
      assert.equal(head.headers.get("content-type"), get.headers.get("content-type"));
    },
  );

  await t.step(
    "static files: strong ETags, 304s, immutable hashed URLs, revalidated pages",
    async () => {
      const [wasm] = PLAYGROUND_WASM.keys();
      const cases: [string, string][] = [
        ["/playground/main.js", "no-cache"],
        ["/playground/", "no-cache"],
        [`/playground/${chunks[0]}`, "public, max-age=31536000, immutable"],
        [`/playground/ort/${wasm}`, "public, max-age=31536000, immutable"],
        ["/docs", "no-cache"],
        ["/openapi.json", "no-cache"],
        ["/docs/swagger-ui-bundle.js", "public, max-age=86400"],
        ["/", "no-cache"],
      ];
      for (const [path, cacheControl] of cases) {
        for (const encoding of [undefined, "br"]) {
          const headers: Record<string, string> = encoding ? { "accept-encoding": encoding } : {};
          const first = await raw(port, "GET", path, headers);
          const etag = first.headers.get("etag");
          const lastModified = first.headers.get("last-modified");
          assert.equal(first.status, 200, path);
          assert.match(etag ?? "", /^"[A-Za-z0-9_-]{22}(\.(br|gzip))?"$/, `${path}: strong ETag`);
          assert.equal(first.headers.get("cache-control"), cacheControl, path);
          assert.ok(lastModified && Number.isFinite(Date.parse(lastModified)), path);
          const byTag = await raw(port, "GET", path, { ...headers, "if-none-match": etag! });
          assert.equal(byTag.status, 304, `${path}: If-None-Match`);
          assert.equal(byTag.bytes.length, 0);
          assert.equal(byTag.headers.get("etag"), etag);
          assert.equal(byTag.headers.get("cache-control"), cacheControl);
          const byDate = await raw(port, "GET", path, {
            ...headers,
            "if-modified-since": lastModified!,
          });
          assert.equal(byDate.status, 304, `${path}: If-Modified-Since`);
          const stale = await raw(port, "GET", path, { ...headers, "if-none-match": '"other"' });
          assert.equal(stale.status, 200, `${path}: another ETag`);
          const older = new Date(Date.parse(lastModified!) - 1000).toUTCString();
          const changed = await raw(port, "GET", path, { ...headers, "if-modified-since": older });
          assert.equal(changed.status, 200, `${path}: modified since`);
        }
      }
    },
  );

  await t.step("compressed answers decompress to the bytes sent uncompressed", async () => {
    const [wasm] = PLAYGROUND_WASM.keys();
    for (
      const path of [
        `/playground/ort/${wasm}`,
        "/playground/main.js",
        "/docs/swagger-ui-bundle.js",
        "/openapi.json",
        "/",
        "/favicon.ico",
      ]
    ) {
      const plain = await raw(port, "GET", path);
      assert.equal(plain.headers.get("content-encoding"), undefined, path);
      for (const encoding of ["br", "gzip"]) {
        const packed = await raw(port, "GET", path, { "accept-encoding": `${encoding}, identity` });
        assert.equal(packed.headers.get("content-encoding"), encoding, path);
        assert.equal(packed.headers.get("vary"), "accept-encoding, origin", path);
        assert.ok(packed.bytes.length < plain.bytes.length, `${path} ${encoding} is smaller`);
        assert.deepEqual(await decompress(packed.bytes, encoding), plain.bytes, path);
      }
    }
    // A dynamic answer over the threshold (16 KiB): OIP infer of 400 rows, gzip preferred.
    const rows = 400;
    const infer = JSON.stringify({
      inputs: [{
        name: "marking",
        datatype: "FP32",
        shape: [rows, 3],
        data: Array.from({ length: rows * 3 }, (_, i) => (i % 7) / 7),
      }],
    });
    const path = `/v2/models/${NAME}/infer`;
    const plain = await raw(port, "POST", path, {}, infer);
    assert.ok(plain.bytes.length > 16 * 1024, `${plain.bytes.length} bytes`);
    assert.equal(plain.headers.get("vary"), "accept-encoding, origin");
    const packed = await raw(port, "POST", path, { "accept-encoding": "br, gzip" }, infer);
    assert.equal(packed.headers.get("content-encoding"), "gzip");
    assert.ok(packed.bytes.length < plain.bytes.length / 2);
    assert.deepEqual(await decompress(packed.bytes, "gzip"), plain.bytes);
    // A small one is sent as it is.
    const small = await raw(
      port,
      "POST",
      "/forward",
      { "accept-encoding": "gzip" },
      '{"input_marking":{}}',
    );
    assert.equal(small.status, 200);
    assert.equal(small.headers.get("content-encoding"), undefined);
    assert.ok(JSON.parse(small.body).transition_activations);
  });

  await t.step("CORS: preflight, actual answers, refused origins", async () => {
    const preflight = await raw(port, "OPTIONS", "/forward", {
      origin: PAGE_ORIGIN,
      "access-control-request-method": "POST",
      "access-control-request-headers": "content-type, x-request-id",
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get("access-control-allow-origin"), PAGE_ORIGIN);
    assert.equal(preflight.headers.get("access-control-allow-methods"), "GET, HEAD, POST");
    assert.equal(
      preflight.headers.get("access-control-allow-headers"),
      "content-type, x-request-id",
    );
    assert.equal(preflight.headers.get("access-control-max-age"), "600");
    const actual = await raw(
      port,
      "POST",
      "/forward",
      { origin: PAGE_ORIGIN },
      '{"input_marking":{}}',
    );
    assert.equal(actual.headers.get("access-control-allow-origin"), PAGE_ORIGIN);
    assert.equal(actual.headers.get("access-control-expose-headers"), "x-request-id, retry-after");
    assert.match(actual.headers.get("vary") ?? "", /origin/);
    const other = "http://127.0.0.1:10";
    const refused = await raw(port, "OPTIONS", "/forward", {
      origin: other,
      "access-control-request-method": "POST",
    });
    assert.equal(refused.status, 403);
    assert.equal(refused.headers.get("access-control-allow-origin"), undefined);
    assert.match(
      JSON.parse(refused.body).detail,
      /origin "http:\/\/127\.0\.0\.1:10" is not allowed/,
    );
    const foreign = await raw(port, "GET", "/healthz", { origin: other });
    assert.equal(foreign.status, 200);
    assert.equal(foreign.headers.get("access-control-allow-origin"), undefined);
    // An OPTIONS that is no preflight is not a CORS matter: 405 as before.
    assert.equal((await raw(port, "OPTIONS", "/forward")).status, 405);
  });

  await t.step("GET / links everything; /favicon.ico is an icon", async () => {
    const home = await raw(port, "GET", "/");
    assert.equal(home.headers.get("content-type"), "text/html; charset=utf-8");
    for (const href of ["docs", "redoc", "playground/", "openapi.json", "metrics", "healthz"]) {
      assert.ok(home.body.includes(`<a href="${href}">`), href);
    }
    assert.ok(home.body.includes(VERSION), "the model's version");
    const icon = await raw(port, "GET", "/favicon.ico");
    assert.equal(icon.headers.get("content-type"), "image/x-icon");
    assert.deepEqual([...icon.bytes.subarray(0, 4)], [0, 0, 1, 0]);
  });

  server.kill("SIGTERM");
  assert.equal((await server.finished()).code, 0);
});

Deno.test("CORS is off by default: no CORS headers, and a preflight gets 405", async () => {
  await using server = await startServerProcess(SERVE);
  const port = Number(new URL(server.origin).port);
  const preflight = await raw(port, "OPTIONS", "/forward", {
    origin: PAGE_ORIGIN,
    "access-control-request-method": "POST",
  });
  assert.equal(preflight.status, 405);
  assert.equal(preflight.headers.get("access-control-allow-origin"), undefined);
  const get = await raw(port, "GET", "/healthz", { origin: PAGE_ORIGIN });
  assert.equal(get.headers.get("access-control-allow-origin"), undefined);
  server.kill("SIGTERM");
  assert.equal((await server.finished()).code, 0);
});

Deno.test("cli.ts --version and -V print the package version; a bad --cors-origin exits 2", async () => {
  for (const flag of ["--version", "-V"]) {
    const output = await runDeno(["run", "-A", "cli.ts", flag]);
    assert.equal(output.code, 0);
    assert.match(output.stdout, /^@petri\/serve 0\.1\.0 \(deno \d+\.\d+\.\d+\)\n$/);
  }
  const bad = await runDeno(["run", "-A", "cli.ts", "serve", "--cors-origin", "app.example"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--cors-origin: CORS origin 'app\.example' is not an origin/);
});
