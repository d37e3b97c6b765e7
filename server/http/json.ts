/**
 * JSON responses: {@link jsonResponse} sends a body written by `core/ops/json.ts`'s
 * `stringifyJson` (Maps as objects with sorted keys, non-finite numbers as `null`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { stringifyJson } from "./json.ts";
 * assert.deepEqual(stringifyJson({ a: new Map([["b", NaN], ["__proto__", 1]]) }), '{"a":{"__proto__":1,"b":null}}');
 * ```
 *
 * @module
 */

import { jsonPieces, stringifyJson } from "../../core/ops/mod.ts";
import { REQUEST_ID_HEADER } from "./request_id.ts";

export { stringifyJson };

const encoder = new TextEncoder();

/**
 * A JSON response whose size in bytes is known (`context.responseBytes`), so no one reads it to
 * size it. A plain one carries no `Content-Length` of ours (Deno sizes a static body itself, and
 * each header lengthens its response path) and, when it is ASCII, goes out as text that Deno
 * encodes without a copy of ours.
 */
export function jsonResponse(
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = NO_HEADERS,
  context?: ResponseNotes,
): Response {
  const text = stringifyJson(body);
  // The request id goes in now: compression then needs to read no header.
  const plain = context !== undefined && headers === NO_HEADERS;
  const ascii = plain && !NON_ASCII.test(text);
  const bytes = ascii ? undefined : encoder.encode(text);
  const size = bytes?.length ?? text.length;
  const response = new Response(bytes ?? text, {
    status,
    headers: plain
      ? {
        "content-type": "application/json",
        [REQUEST_ID_HEADER]: context.requestId,
        // What compression adds to every JSON response: set now, no header is set afterwards.
        vary: "accept-encoding",
      }
      : { ...headers, "content-type": "application/json", "content-length": String(size) },
  });
  if (context !== undefined) {
    context.responseBytes = size;
    if (plain) context.plainResponse = response;
  }
  return response;
}

/** A character that UTF-8 writes in more than one byte (any above U+007F). */
const NON_ASCII = /[\u0080-\uffff]/;

const NO_HEADERS: Readonly<Record<string, string>> = {};

/** Where {@link jsonResponse} notes its response's size (a request's context). */
export interface ResponseNotes {
  /** The request's id, which a plain response carries from the start. */
  readonly requestId: string;
  /** The response's size in bytes. */
  responseBytes: number | undefined;
  /** The response, when it has no extra headers but the request id (compression reads none). */
  plainResponse: Response | undefined;
  /** The response, when its body is written as it is sent (compression then streams too). */
  streamedResponse: Response | undefined;
  /** Called once a streamed response has been sent, or its client has gone. */
  responseSent: (() => void) | undefined;
}

/** Numbers per piece of a streamed response: about 150 KB of text, a few ms to write. */
const PIECE_NUMBERS = 8192;

/**
 * A JSON response written as the socket takes it, its typed arrays {@link PIECE_NUMBERS}
 * numbers per event-loop turn: a large one holds neither the thread nor its whole text.
 */
export function streamedJsonResponse(
  status: number,
  body: unknown,
  context?: ResponseNotes,
): Response {
  const pieces = jsonPieces(body, PIECE_NUMBERS);
  let pending = "";
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      // Small pieces (keys, brackets) ride with the next large one.
      for (let next = pieces.next();; next = pieces.next()) {
        if (next.done) {
          if (pending !== "") controller.enqueue(encoder.encode(pending));
          controller.close();
          context?.responseSent?.();
          return;
        }
        pending += next.value;
        if (pending.length >= 4096) break;
      }
      controller.enqueue(encoder.encode(pending));
      pending = "";
    },
    cancel() {
      context?.responseSent?.();
    },
  }, { highWaterMark: 0 });
  const response = new Response(stream, {
    status,
    headers: { "content-type": "application/json" },
  });
  if (context !== undefined) context.streamedResponse = response;
  return response;
}
