/**
 * Turns a byte stream into the text chunks the readers parse: gunzipping, strict decoding, and
 * cancelling the source when the consumer stops early. Web-standard APIs only.
 *
 * @module
 */

import { errorText, TraceReadError } from "./errors.ts";

/** Options of {@link readBytes}. */
export interface BytesOptions {
  /** What the name says (`.gz`); the data's first bytes decide. */
  gzip?: boolean | undefined;
  /** Yield the bytes as they are, never gunzipped: a part of a file, read from an offset. */
  raw?: boolean | undefined;
}

/**
 * Yields the chunks of `stream`, gunzipped when it starts with gzip's magic bytes whatever its
 * name; stopping early cancels the stream, so an open file is closed.
 */
export async function* readBytes(
  stream: ReadableStream<Uint8Array>,
  name: string,
  options: BytesOptions = {},
): AsyncGenerator<Uint8Array, void, undefined> {
  const { stream: bytes, gzip } = options.raw
    ? { stream, gzip: false }
    : await sniffGzip(stream, name);
  const source = gzip ? gunzip(bytes) : bytes;
  const reader = source.getReader();
  let done = false;
  try {
    for (;;) {
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await reader.read();
      } catch (error) {
        done = true;
        const what = gzip ? "cannot decompress the gzip data" : "cannot read the input";
        throw new TraceReadError(`${name}: ${what}: ${errorText(error)}`, { cause: error });
      }
      if (result.done) {
        done = true;
        return;
      }
      yield result.value;
    }
  } finally {
    if (!done) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

/** `stream` again, whole, and whether its first two bytes are gzip's magic bytes. */
async function sniffGzip(
  stream: ReadableStream<Uint8Array>,
  name: string,
): Promise<{ stream: ReadableStream<Uint8Array>; gzip: boolean }> {
  const reader = stream.getReader();
  const head: Uint8Array[] = [];
  let length = 0;
  let ended = false;
  try {
    while (length < 2) {
      const next = await reader.read();
      if (next.done) {
        ended = true;
        break;
      }
      head.push(next.value);
      length += next.value.length;
    }
  } catch (error) {
    reader.releaseLock();
    throw new TraceReadError(`${name}: cannot read the input: ${errorText(error)}`, {
      cause: error,
    });
  }
  const first = head.find((chunk) => chunk.length > 0)?.[0];
  const second = head.flatMap((chunk) => [...chunk.subarray(0, 2)])[1];
  const whole = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of head) controller.enqueue(chunk);
      if (ended) controller.close();
    },
    async pull(controller) {
      const next = await reader.read();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return { stream: whole, gzip: first === 0x1f && second === 0x8b };
}

/**
 * Decodes byte chunks to text chunks with `encoding` (default UTF-8), strictly: bytes that are
 * not valid in that encoding are a {@link TraceReadError} naming the byte range of the chunk
 * that held them. A leading UTF-8 byte-order mark is dropped.
 */
export async function* decodeText(
  chunks: AsyncIterable<Uint8Array>,
  name: string,
  encoding = "utf-8",
): AsyncGenerator<string, void, undefined> {
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(encoding, { fatal: true });
  } catch (error) {
    throw new TraceReadError(`${name}: unsupported text encoding '${encoding}'`, { cause: error });
  }
  let offset = 0;
  for await (const bytes of chunks) {
    let text: string;
    try {
      text = decoder.decode(bytes, { stream: true });
    } catch (error) {
      if (offset === 0 && decoder.encoding === "utf-8" && looksUtf16(bytes)) {
        throw new TraceReadError(
          `${name}: the text is UTF-16, not UTF-8 (convert the file to UTF-8; an XES log may ` +
            "be UTF-16)",
          { cause: error },
        );
      }
      throw invalidText(name, decoder.encoding, offset, offset + bytes.length, error);
    }
    offset += bytes.length;
    if (text.length > 0) yield text;
  }
  let rest: string;
  try {
    rest = decoder.decode();
  } catch (error) {
    throw invalidText(name, decoder.encoding, offset, offset, error);
  }
  if (rest.length > 0) yield rest;
}

/**
 * Gunzips in pieces of at most {@link GZIP_PIECE_BYTES} compressed bytes: a piece's whole output
 * comes at once and deflate expands up to 1032-fold, so bounded pieces keep memory flat.
 */
export function gunzip(stream: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  // The DOM typing of DecompressionStream's writable side (BufferSource) is wider than
  // pipeThrough's parameter allows; the runtime accepts Uint8Array chunks.
  const pair = new DecompressionStream("gzip") as unknown as ReadableWritablePair<
    Uint8Array,
    Uint8Array
  >;
  return stream.pipeThrough(pieces(GZIP_PIECE_BYTES)).pipeThrough(pair);
}

/** The most compressed bytes handed to the decompressor at a time. */
export const GZIP_PIECE_BYTES = 1024;

/** Chunks cut into views of at most `size` bytes. */
function pieces(size: number): TransformStream<Uint8Array, Uint8Array> {
  return new TransformStream({
    transform(chunk, controller) {
      for (let at = 0; at < chunk.length; at += size) {
        controller.enqueue(chunk.subarray(at, at + size));
      }
    },
  });
}

/**
 * A stream pulling its chunks from `chunks`; cancelling the stream ends the generator (so its
 * `finally` blocks close what it holds).
 */
export function streamFrom(
  chunks: AsyncGenerator<Uint8Array, void, undefined>,
): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel() {
      await chunks.return();
    },
  });
}

function invalidText(
  name: string,
  encoding: string,
  start: number,
  end: number,
  cause: unknown,
): TraceReadError {
  const where = end > start ? `in bytes ${start}-${end - 1}` : `at its end (byte ${start})`;
  return new TraceReadError(`${name}: the text is not valid ${encoding} ${where}`, { cause });
}

/** A UTF-16 byte-order mark, or ASCII text as UTF-16 (every other byte zero) at the start. */
function looksUtf16(bytes: Uint8Array): boolean {
  const [a, b, c, d] = bytes;
  if ((a === 0xff && b === 0xfe) || (a === 0xfe && b === 0xff)) return true;
  return (a !== 0 && b === 0 && c !== 0 && d === 0) || (a === 0 && b !== 0 && c === 0 && d !== 0);
}
