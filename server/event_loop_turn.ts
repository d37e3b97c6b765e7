/**
 * A turn of the event loop for long work on the serving thread: awaiting {@link
 * EventLoopTurn.next} lets every request and timer that is ready run first, as a timer would,
 * without a timer's clamping (a chain of `setTimeout(0)` waits about 1–4 ms a turn; a message
 * to oneself over a `MessageChannel` takes a few microseconds). `POST /batch` takes one between
 * batches of a log, so that the log never holds the thread for more than a batch. Close it when
 * done: its port keeps the process alive while open.
 *
 * @example
 * ```ts
 * import { EventLoopTurn } from "./event_loop_turn.ts";
 * using turn = new EventLoopTurn();
 * for (let batch = 0; batch < 3; batch++) {
 *   // ... a batch of work ...
 *   await turn.next();
 * }
 * ```
 *
 * @module
 */

/** See the module doc. */
export class EventLoopTurn implements Disposable {
  readonly #channel = new MessageChannel();
  #resolve: (() => void) | undefined;

  constructor() {
    this.#channel.port1.onmessage = () => {
      const resolve = this.#resolve;
      this.#resolve = undefined;
      resolve?.();
    };
  }

  /** Resolves once the event loop has taken a turn (one turn at a time). */
  next(): Promise<void> {
    const { promise, resolve } = Promise.withResolvers<void>();
    this.#resolve = resolve;
    this.#channel.port2.postMessage(undefined);
    return promise;
  }

  /** Closes the channel (a turn still awaited resolves no more). */
  [Symbol.dispose](): void {
    this.#channel.port1.close();
    this.#channel.port2.close();
  }
}
