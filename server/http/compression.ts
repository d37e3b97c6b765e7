/**
 * Compression by `Accept-Encoding` with the web-standard `CompressionStream`: static files
 * once and kept, brotli first; dynamic responses per request, gzip first (brotli costs twice
 * the time for a barely smaller result). Large inputs yield to the event loop between pieces.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compress, negotiateEncoding } from "./compression.ts";
 * assert.equal(negotiateEncoding("gzip, deflate, br", ["br", "gzip"]), "br");
 * assert.ok((await compress(new TextEncoder().encode("abc".repeat(1000)), "gzip")).length < 100);
 * ```
 *
 * @module
 */

import { qualityValues } from "./quality_values.ts";
import { addVary, withHeaders } from "./response_headers.ts";

/** An encoding the server can produce. */
export type Encoding = "br" | "gzip";

/**
 * Dynamic responses smaller than this are sent as they are: they fit TCP's initial window, so
 * compressing them costs more time than it saves.
 */
export const COMPRESS_MIN_BYTES = 16 * 1024;

/** How much {@link compress} hands the compressor before it yields to the event loop. */
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

/** The encodings this runtime can produce, best first for files sent many times. */
export const STATIC_ENCODINGS: readonly Encoding[] = supports(FORMATS.br) ? ["br", "gzip"] : [
  "gzip",
];

/** The encodings for responses compressed per request, cheapest first. */
export const DYNAMIC_ENCODINGS: readonly Encoding[] = [...STATIC_ENCODINGS].reverse();

/**
 * The first of `offered` that `acceptEncoding` accepts (q > 0, by name or by `*`), or
 * `undefined` for none; a malformed header accepts nothing.
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
 * `bytes` compressed with `encoding`, {@link PIECE_BYTES} at a time with the event loop free
 * between pieces.
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
 * Whether responses of `contentType` are worth compressing (not images or archives, which are
 * compressed already).
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
 * A dynamic response, compressed when the client accepts it, its type is {@link compressible}
 * and its body has at least `minBytes`; every compressible one gets `Vary: Accept-Encoding`.
 * Responses with a `Content-Encoding` already, 204 and 304 pass unchanged. `plainSize` is the
 * size of a response made by `jsonResponse` with no extra headers, which carries `Vary` already.
 */
export async function compressResponse(
  request: Request,
  response: Response,
  minBytes: number = COMPRESS_MIN_BYTES,
  plainSize?: number,
  streamed = false,
): Promise<Response> {
  // A small plain JSON response (`jsonResponse` set its `Vary`): left as it is, without reading
  // its headers, which in Deno would drop the response's fast path.
  if (plainSize !== undefined && plainSize < minBytes) return response;
  const { headers, status } = response;
  // Not `response.body === null`: in Deno reading `body` then setting a header drops Content-Length.
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
    // A streamed response (no length): compressed as it streams, never held whole.
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
