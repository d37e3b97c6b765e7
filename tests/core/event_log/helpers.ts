/**
 * Helpers for the trace reader tests: byte streams cut into chosen chunk sizes, gzip, and a
 * plain-JSON view of traces for `assert.deepEqual`.
 *
 * @module
 */

import type { Trace } from "../../../core/event_log/mod.ts";

/** UTF-8 bytes of `text`. */
export function bytesOf(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/**
 * A stream of `data` cut into chunks of `size` bytes (all at once when absent), or of the
 * sizes `size` returns in turn, so tests can cut anywhere (also inside a UTF-8 sequence).
 */
export function streamOf(
  data: string | Uint8Array,
  size?: number | (() => number),
): ReadableStream<Uint8Array> {
  const bytes = typeof data === "string" ? bytesOf(data) : data;
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.length) {
        controller.close();
        return;
      }
      const n = size === undefined
        ? bytes.length
        : Math.max(1, typeof size === "number" ? size : size());
      controller.enqueue(bytes.slice(at, at + n));
      at += n;
    },
  });
}

/** `data` gzipped with the web-standard `CompressionStream`. */
export async function gzip(data: string | Uint8Array): Promise<Uint8Array> {
  const compressed = streamOf(data).pipeThrough(
    new CompressionStream("gzip") as unknown as ReadableWritablePair<Uint8Array, Uint8Array>,
  );
  return new Uint8Array(await new Response(compressed).arrayBuffer());
}

/** A deterministic pseudo-random generator (mulberry32), for reproducible fuzzing. */
export { mulberry32 as random } from "../../random.ts";

/** A trace as plain JSON-able data: attributes and event attributes as entry lists. */
export interface PlainTrace {
  attributes: [string, string][];
  events: { name: string; attributes: [string, string][] }[];
}

/** The plain view of a trace, keeping the order of every map. */
export function plain(trace: Trace): PlainTrace {
  return {
    attributes: [...trace.attributes],
    events: trace.events.map((e) => ({ name: e.name, attributes: [...e.attributes] })),
  };
}

/** All traces of an async iterable, as plain data. */
export async function collect(traces: AsyncIterable<Trace>): Promise<PlainTrace[]> {
  const out: PlainTrace[] = [];
  for await (const trace of traces) out.push(plain(trace));
  return out;
}

/** The message of the error `run` rejects with (fails when it resolves). */
export async function rejection(run: () => Promise<unknown>): Promise<Error> {
  try {
    await run();
  } catch (error) {
    if (error instanceof Error) return error;
    throw error;
  }
  throw new Error("expected a rejection, got none");
}
