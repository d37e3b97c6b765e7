/**
 * A streamed response: text is written in, and the client reads it as bytes at its own pace. A
 * write waits until the client has taken what came before (one chunk may wait in the stream),
 * so the writer goes no faster than the client reads and memory holds one chunk whatever the
 * response's length; `onWaiting` is told when a write has waited a while (the client may send
 * its whole request before it reads). A client that goes away cancels the stream: `onCancel` is
 * told, and writes from then on are dropped.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ResponseStream } from "./response_stream.ts";
 * const stream = new ResponseStream(() => {});
 * const reading = new Response(stream.readable).text();
 * await stream.write("[\n  1");
 * stream.push("\n]\n");
 * stream.end();
 * assert.equal(await reading, "[\n  1\n]\n");
 * ```
 *
 * @module
 */

const encoder = new TextEncoder();

/** A write waiting this long for the client to read counts as waiting (ms). */
export const WAITING_MS = 100;

/** See the module doc. */
export class ResponseStream {
  /** The response's body. */
  readonly readable: ReadableStream<Uint8Array>;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  /** Wakes a write waiting for room. */
  #wake: (() => void) | undefined;
  #over = false;

  readonly #onWaiting: ((waiting: boolean) => void) | undefined;

  /**
   * @param onCancel called once when the client stops reading (it hung up)
   * @param onWaiting called with `true` once a write has waited {@link WAITING_MS} for the
   * client to read, and with `false` when it goes on
   */
  constructor(onCancel: (reason: unknown) => void, onWaiting?: (waiting: boolean) => void) {
    this.#onWaiting = onWaiting;
    this.readable = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      pull: () => this.#wakeWriter(),
      cancel: (reason) => {
        this.#over = true;
        this.#wakeWriter();
        onCancel(reason);
      },
    }, { highWaterMark: 1 });
  }

  /** Whether the stream has ended (closed, failed or cancelled by the client). */
  get over(): boolean {
    return this.#over;
  }

  /**
   * Queues `text` once the client has taken what came before, or at once when `signal` has
   * aborted (the response is being cut: its last bytes must not wait); resolves when queued.
   */
  async write(text: string, signal?: AbortSignal): Promise<void> {
    if (text === "" || this.#over) return;
    const bytes = encoder.encode(text);
    let waiting = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    while (!this.#over && (this.#controller.desiredSize ?? 0) <= 0 && !signal?.aborted) {
      const { promise, resolve } = Promise.withResolvers<void>();
      this.#wake = resolve;
      const stop = () => resolve();
      signal?.addEventListener("abort", stop, { once: true });
      timer ??= setTimeout(() => {
        waiting = true;
        this.#onWaiting?.(true);
      }, WAITING_MS);
      await promise;
      signal?.removeEventListener("abort", stop);
    }
    clearTimeout(timer);
    if (waiting) this.#onWaiting?.(false);
    if (!this.#over) this.#controller.enqueue(bytes);
  }

  /** Queues `text` whatever the client has read (the last bytes of a response being cut). */
  push(text: string): void {
    if (text !== "" && !this.#over) this.#controller.enqueue(encoder.encode(text));
  }

  /** Ends the response. */
  end(): void {
    if (this.#over) return;
    this.#over = true;
    this.#controller.close();
  }

  /** Ends the response as broken (the client sees its connection fail). */
  fail(reason: unknown): void {
    if (this.#over) return;
    this.#over = true;
    this.#controller.error(reason);
    this.#wakeWriter();
  }

  #wakeWriter(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
