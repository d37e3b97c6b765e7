/**
 * Compression by `Accept-Encoding` (RFC 9110 §12.5.3) with the web-standard
 * `CompressionStream`: `gzip` everywhere, and `brotli` where the runtime has it (Deno 2.9 does).
 *
 * - Static files (`./static_asset.ts`) are compressed once, on the first request that accepts
 *   an encoding, and kept; brotli is preferred for them.
 * - Dynamic answers (`/forward`, `/metrics`, OIP `infer`, …) are compressed per request only
 *   from {@link COMPRESS_MIN_BYTES} up, with gzip preferred (brotli costs twice gzip's time on
 *   answers of floats for a 2 % smaller result; `bench/compression_bench.ts`).
 *
 * {@link compress} feeds the compressor {@link PIECE_BYTES} at a time and yields to the event
 * loop between pieces, so compressing the playground's 14 MB `.wasm` (about 1 s) never stalls
 * other requests for more than a few tens of ms. Deno's brotli stream ends a block at each
 * piece, which costs about 14 % of the ratio on that file (3.15 MB rather than 2.77 MB in one
 * piece); the pause-free alternative, a whole-file pass, blocks the server for 1.4 s.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compress, negotiateEncoding } from "./compression.ts";
 * assert.equal(negotiateEncoding("gzip, deflate, br", ["br", "gzip"]), "br");
 * const text = new TextEncoder().encode("abc".repeat(1000));
 * const packed = await compress(text, "gzip");
 * assert.ok(packed.length < 100);
 * const unpacked = await new Response(
 *   new Blob([packed]).stream().pipeThrough(new DecompressionStream("gzip")),
 * ).text();
 * assert.equal(unpacked, "abc".repeat(1000));
 * ```
 *
 * @module
 */

import { qualityValues } from "./quality_values.ts";
import { addVary, withHeaders } from "./response_headers.ts";

/** An encoding the server can produce. */
export type Encoding = "br" | "gzip";

/**
 * Dynamic answers smaller than this are sent as they are. Measured with
 * `bench/compression_bench.ts`: gzip costs 50–200 µs on answers under 16 KiB (35–40 times the
 * cost of sending them as they are) and saves under 10 KB, and such an answer fits TCP's
 * initial window (10 segments, about 14 KB) anyway, so no round trip is saved. From there up
 * the compressed answer needs fewer round trips, and gzip's ~30 ns per byte is less than the
 * wire time it saves on links slower than about 150 Mbit/s.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { COMPRESS_MIN_BYTES } from "./compression.ts";
 * assert.equal(COMPRESS_MIN_BYTES, 16384);
 * ```
 */
export const COMPRESS_MIN_BYTES = 16 * 1024;

/**
 * How much {@link compress} hands the compressor before it yields to the event loop.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PIECE_BYTES } from "./compression.ts";
 * assert.equal(PIECE_BYTES, 262144);
 * ```
 */
export const PIECE_BYTES = 256 * 1024;

const FORMATS: Readonly<Record<Encoding, string>> = { br: "brotli", gzip: "gzip" };

/** Whether this runtime's `CompressionStream` knows `format`. */
function supports(format: string): boolean {
  try {
    new CompressionStream(format as CompressionFormat);
    return true;
  } catch {
    return false;
  }
}

/**
 * The encodings this runtime can produce, best first for files sent many times: brotli (when
 * the runtime's `CompressionStream` has it), then gzip.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { STATIC_ENCODINGS } from "./compression.ts";
 * assert.ok(STATIC_ENCODINGS.includes("gzip"));
 * ```
 */
export const STATIC_ENCODINGS: readonly Encoding[] = supports(FORMATS.br) ? ["br", "gzip"] : [
  "gzip",
];

/**
 * The encodings for answers compressed per request, cheapest first: gzip, then brotli.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DYNAMIC_ENCODINGS } from "./compression.ts";
 * assert.equal(DYNAMIC_ENCODINGS[0], "gzip");
 * ```
 */
export const DYNAMIC_ENCODINGS: readonly Encoding[] = [...STATIC_ENCODINGS].reverse();

/**
 * The first of `offered` that `acceptEncoding` accepts (q > 0, by name or by `*`), or
 * `undefined` for none (then the answer is sent as it is). A malformed header accepts nothing.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { negotiateEncoding } from "./compression.ts";
 * assert.equal(negotiateEncoding("gzip;q=1.0, br;q=0", ["br", "gzip"]), "gzip");
 * assert.equal(negotiateEncoding("*", ["br", "gzip"]), "br");
 * assert.equal(negotiateEncoding(null, ["gzip"]), undefined);
 * assert.equal(negotiateEncoding("identity", ["gzip"]), undefined);
 * ```
 */
export function negotiateEncoding(
  acceptEncoding: string | null,
  offered: readonly Encoding[],
): Encoding | undefined {
  if (!acceptEncoding) return undefined;
  // Bounded: a header is at most the runtime's header size limit, and only 16 entries count.
  const weights = qualityValues(acceptEncoding, 16);
  const star = weights.get("*");
  return offered.find((encoding) => (weights.get(encoding) ?? star ?? 0) > 0);
}

/**
 * `bytes` compressed with `encoding`, {@link PIECE_BYTES} at a time with the event loop
 * free between pieces.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compress } from "./compression.ts";
 * const packed = await compress(new Uint8Array(1 << 20), "gzip");
 * assert.ok(packed.length < 5000);
 * ```
 */
export async function compress(
  bytes: Uint8Array,
  encoding: Encoding,
): Promise<Uint8Array<ArrayBuffer>> {
  const stream = new CompressionStream(FORMATS[encoding] as CompressionFormat);
  const writer = stream.writable.getWriter();
  const output = new Response(stream.readable).arrayBuffer();
  for (let at = 0; at < bytes.length; at += PIECE_BYTES) {
    if (at > 0) await new Promise((resolve) => setTimeout(resolve, 0));
    await writer.write(bytes.subarray(at, at + PIECE_BYTES) as Uint8Array<ArrayBuffer>);
  }
  await writer.close();
  return new Uint8Array(await output);
}

/**
 * Whether answers of `contentType` are worth compressing: text, JSON, JavaScript, SVG, XML and
 * WebAssembly; not images or archives, which are compressed already.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compressible } from "./compression.ts";
 * assert.equal(compressible("application/json"), true);
 * assert.equal(compressible("text/plain; version=0.0.4; charset=utf-8"), true);
 * assert.equal(compressible("image/png"), false);
 * ```
 */
export function compressible(contentType: string | null): boolean {
  if (contentType === null) return false;
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  return type.startsWith("text/") || type.endsWith("+json") || type.endsWith("+xml") ||
    COMPRESSIBLE.has(type);
}

const COMPRESSIBLE = new Set([
  "application/json",
  "application/javascript",
  "application/wasm",
  "application/xml",
  "image/svg+xml",
  "image/x-icon",
]);

/**
 * A dynamic answer, compressed when the client accepts gzip or brotli, its type is
 * {@link compressible} and its body is at least `minBytes` long; every compressible answer
 * gets `Vary: Accept-Encoding`. Answers that already have a `Content-Encoding` (static files)
 * pass unchanged, and so do 204 and 304.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compressAnswer } from "./compression.ts";
 * const request = new Request("http://localhost/x", { headers: { "accept-encoding": "gzip" } });
 * const big = await compressAnswer(request, Response.json({ text: "x".repeat(50_000) }));
 * assert.equal(big.headers.get("content-encoding"), "gzip");
 * assert.equal(big.headers.get("vary"), "accept-encoding");
 * const small = await compressAnswer(request, Response.json({ ok: true }));
 * assert.equal(small.headers.get("content-encoding"), null);
 * assert.deepEqual(await small.json(), { ok: true });
 * ```
 */
export async function compressAnswer(
  request: Request,
  response: Response,
  minBytes: number = COMPRESS_MIN_BYTES,
  plainSize?: number,
  streamed = false,
): Promise<Response> {
  // A small plain JSON answer (`plainSize`, from `./json.ts`): what the checks below would
  // find, without reading the headers (never 204 or 304, no Content-Encoding, no Vary).
  if (plainSize !== undefined && plainSize < minBytes) {
    response.headers.set("vary", "accept-encoding");
    return response;
  }
  const { headers, status } = response;
  // Not `response.body === null`: in Deno 2.9, reading `body` and then setting a header makes
  // a text answer go out chunked, without its Content-Length.
  if (
    status === 204 || status === 304 || headers.has("content-encoding") ||
    !compressible(headers.get("content-type"))
  ) {
    return response;
  }
  const vary = addVary(headers.get("vary"), "accept-encoding");
  const encoding = negotiateEncoding(request.headers.get("accept-encoding"), DYNAMIC_ENCODINGS);
  const declared = headers.get("content-length");
  if (encoding === undefined || (declared !== null && Number(declared) < minBytes)) {
    return withHeaders(response, { vary });
  }
  if (streamed && response.body !== null) {
    // A streamed answer (no length): compressed as it streams, never held whole.
    const out = new Response(
      response.body.pipeThrough(new CompressionStream(FORMATS[encoding] as CompressionFormat)),
      { status: response.status, statusText: response.statusText, headers },
    );
    out.headers.set("vary", vary);
    out.headers.set("content-encoding", encoding);
    return out;
  }
  const bytes = new Uint8Array(await response.arrayBuffer());
  const copy = { status: response.status, statusText: response.statusText, headers };
  if (bytes.length < minBytes) {
    const out = new Response(bytes, copy);
    out.headers.set("vary", vary);
    out.headers.set("content-length", String(bytes.length));
    return out;
  }
  const packed = await compress(bytes, encoding);
  const out = new Response(packed, copy);
  out.headers.set("vary", vary);
  out.headers.set("content-encoding", encoding);
  out.headers.set("content-length", String(packed.length));
  return out;
}
