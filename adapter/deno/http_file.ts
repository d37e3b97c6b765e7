/**
 * The one HTTP client of the inputs: bundles (`bundle_files.ts`) and event logs
 * (`cli/batch/log_source.ts`), whole or by `Range`. Each response and each stall of a body has a
 * timeout, sizes are checked against what the server declared, an HTML page (a sign-in or error
 * page) is refused whatever its status, and the caller words each failure for its kind of file.
 *
 * @module
 */

/** How long fetching may wait for a response (and, streaming, for the next bytes), in ms. */
export const FETCH_TIMEOUT_MS = 60_000;

/**
 * A fetch failure on one line: a timeout says how long it waited, a missing `--allow-net`
 * which host to allow, anything else is the error's message with its line breaks folded.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fetchFailure } from "./http_file.ts";
 * assert.equal(fetchFailure(new DOMException("timed out", "TimeoutError")), "no answer within 60 s");
 * const denied = new Deno.errors.NotCapable('Requires net access to "logs.example.com:443"');
 * assert.equal(
 *   fetchFailure(denied),
 *   "no net permission for logs.example.com:443 (run deno with --allow-net=logs.example.com:443)",
 * );
 * assert.equal(fetchFailure(new TypeError("error sending request\n  refused")), "error sending request refused");
 * ```
 */
export function fetchFailure(error: unknown, timeoutMs: number = FETCH_TIMEOUT_MS): string {
  if (error instanceof DOMException && error.name === "TimeoutError") {
    return `no answer within ${timeoutMs / 1000} s`;
  }
  if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
    const host = /net access to "([^"]+)"/.exec(error.message)?.[1];
    if (host !== undefined) {
      return `no net permission for ${host} (run deno with --allow-net=${host})`;
    }
  }
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/\s*\n\s*/g, " ");
}

/** What went wrong with a request, for the caller to word as its own error. */
export interface HttpProblem {
  /** `status`: an HTTP error response; `html`: an HTML page; `failed`: anything else. */
  readonly kind: "status" | "html" | "failed";
  /** The response's status, for `status` and `html`. */
  readonly status?: number;
  /** For `failed`: what failed ("no answer within 60 s", "the response stalled: …"). */
  readonly detail: string;
  /** The problem in one line that names no URL ("not found (HTTP 404)"). */
  readonly message: string;
}

/** Options of {@link HttpFile}. */
export interface HttpFileOptions {
  /** How long a response, or a body's next bytes, may take, in ms. @default {60000} */
  readonly timeoutMs?: number | undefined;
  /** What the file should be, in the HTML page's refusal ("an event log"). */
  readonly expected: string;
  /** Turns a problem into the error thrown. */
  readonly error: (problem: HttpProblem) => Error;
}

/**
 * `GET`s of one URL, whole or by byte range. Counts the body bytes received and keeps the first
 * `ETag`, so a file that changes between two requests is an error.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { HttpFile } from "./http_file.ts";
 * await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () =>
 *   new Response("nope", { status: 404 }));
 * const file = new HttpFile(new URL(`http://127.0.0.1:${server.addr.port}/x`), {
 *   expected: "a file",
 *   error: (problem) => new Error(problem.message),
 * });
 * await assert.rejects(file.get(), { message: "not found (HTTP 404)" });
 * ```
 */
export class HttpFile {
  /** The body bytes received so far, over all requests. */
  bytesRead = 0;
  /** The file's `ETag`, from the first response that has one. */
  etag: string | undefined;
  /** How long a response, or a body's next bytes, may take. */
  readonly timeoutMs: number;
  readonly #options: HttpFileOptions;

  /** The file at `url`. */
  constructor(readonly url: URL, options: HttpFileOptions) {
    this.timeoutMs = options.timeoutMs ?? FETCH_TIMEOUT_MS;
    this.#options = options;
  }

  /** A `GET` (of bytes `start` to `end` - 1 when given); an error for any answer but 2xx. */
  async get(start?: number, end?: number): Promise<Response> {
    // Identity keeps byte offsets those of the file.
    const headers = new Headers({ "accept-encoding": "identity" });
    if (start !== undefined) {
      headers.set("range", `bytes=${start}-${end === undefined ? "" : end - 1}`);
    }
    // This timeout covers the response's head; each read of the body has its own.
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new DOMException("no answer", "TimeoutError")),
      this.timeoutMs,
    );
    let response: Response;
    try {
      response = await fetch(this.url, { headers, signal: controller.signal });
    } catch (error) {
      throw this.#unreachable(error);
    } finally {
      clearTimeout(timer);
    }
    if (isHtml(response)) {
      await response.body?.cancel();
      const { status } = response;
      const message = `it answered an HTML page (HTTP ${status}), not ${this.#options.expected}`;
      throw this.#options.error({ kind: "html", status, detail: message, message });
    }
    // 416: a range past the end, as a probe of an empty file gets; its Content-Range has the size.
    if (response.ok || (response.status === 416 && start !== undefined)) {
      const etag = response.headers.get("etag") ?? undefined;
      if (etag !== undefined && this.etag !== undefined && etag !== this.etag) {
        await response.body?.cancel();
        throw this.error(`it changed while being read (its ETag was ${this.etag}, now ${etag})`);
      }
      this.etag ??= etag;
      return response;
    }
    await response.body?.cancel();
    const { status } = response;
    const message = status === 404 ? "not found (HTTP 404)" : `cannot fetch it (HTTP ${status})`;
    throw this.#options.error({ kind: "status", status, detail: message, message });
  }

  /** The declared `Content-Length` of a whole-file response, if any. */
  lengthOf(response: Response): number | undefined {
    const text = response.headers.get("content-length");
    const length = text === null ? NaN : Number(text);
    return Number.isSafeInteger(length) && length >= 0 ? length : undefined;
  }

  /** The last byte and total size (`*`: undefined) of a 206 response to a request from `start`. */
  async rangeOf(
    response: Response,
    start: number,
  ): Promise<{ last: number; total: number | undefined }> {
    const text = response.headers.get("content-range") ?? "";
    const match = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(text.trim());
    if (!match || Number(match[1]) !== start) {
      await response.body?.cancel();
      throw this.error(
        `the server answered a Range request from byte ${start} with Content-Range ` +
          `'${text}'`,
      );
    }
    return { last: Number(match[2]), total: match[3] === "*" ? undefined : Number(match[3]) };
  }

  /** Reads a whole (small) body, which must hold `expected` bytes. */
  async body(response: Response, expected: number): Promise<Uint8Array> {
    const bytes = new Uint8Array(expected);
    let at = 0;
    for await (const chunk of this.chunks(response, expected)) {
      bytes.set(chunk, at);
      at += chunk.length;
    }
    return bytes;
  }

  /** The chunks of a body, counted, each read within the timeout; stopping early cancels it. */
  async *chunks(response: Response, expected?: number): AsyncGenerator<Uint8Array> {
    const reader = response.body?.getReader();
    if (!reader) {
      if (expected) throw this.error(`the answer has no body (expected ${expected} bytes)`);
      return;
    }
    let received = 0;
    let done = false;
    try {
      for (;;) {
        const result = await this.#read(reader);
        if (result.done) break;
        received += result.value.length;
        this.bytesRead += result.value.length;
        if (expected !== undefined && received > expected) {
          throw this.error(`the answer holds more than the ${expected} bytes declared`);
        }
        yield result.value;
      }
      done = true;
      if (expected !== undefined && received < expected) {
        throw this.error(`the answer ended after ${received} of ${expected} bytes`);
      }
    } finally {
      if (!done) await reader.cancel().catch(() => {});
      reader.releaseLock();
    }
  }

  /** A whole-file response (to come) as a stream of its body. */
  stream(answer: Promise<Response>, size: number | undefined): ReadableStream<Uint8Array> {
    let chunks: AsyncGenerator<Uint8Array> | undefined;
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        chunks ??= this.chunks(await answer, size);
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
      cancel: async () => {
        // Not pulled yet: the response's body is still unread.
        if (chunks) await chunks.return(undefined);
        else await (await answer).body?.cancel();
      },
    });
  }

  /** The caller's error for a problem found reading a response. */
  error(detail: string): Error {
    return this.#options.error({ kind: "failed", detail, message: detail });
  }

  #unreachable(error: unknown): Error {
    const detail = fetchFailure(error, this.timeoutMs);
    return this.#options.error({ kind: "failed", detail, message: `cannot fetch it (${detail})` });
  }

  async #read(
    reader: ReadableStreamDefaultReader<Uint8Array>,
  ): Promise<ReadableStreamReadResult<Uint8Array>> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stalled = false;
    const stall = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        stalled = true;
        reject(this.error(`the answer stalled: no bytes within ${this.timeoutMs / 1000} s`));
      }, this.timeoutMs);
    });
    try {
      return await Promise.race([reader.read(), stall]);
    } catch (error) {
      if (stalled) throw error;
      throw this.#unreachable(error);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Whether a response says it is an HTML page. */
function isHtml(response: Response): boolean {
  return /^\s*(text\/html|application\/xhtml\+xml)\b/i.test(
    response.headers.get("content-type") ?? "",
  );
}
