/**
 * How a log being scored (`./route.ts`) shares the serving thread with every other
 * request: at each of the pipeline's pause points (every `PAUSE_EVERY` traces read, about a
 * third of a millisecond of work for a small net) it may give the thread up for a turn of the
 * event loop. While other requests come (one arrived in the last second, besides the log's
 * own), it does at every point, so that a request waits for a fraction of a millisecond of log
 * work; while none comes, once it has held the thread for 50 ms, so that a log alone goes
 * nearly at full speed and a request that comes is still answered within about that long.
 *
 * The turn is a timer's: Deno's event loop polls its sockets when it waits for a timer, but
 * not between messages that are already queued (turns through a `MessageChannel`, a few
 * microseconds each, let no request in for about 60 turns). A timer's turn costs about a
 * millisecond or two, which a log pays only while others need the thread.
 *
 * @example
 * ```ts
 * import { LogPacing } from "./pacing.ts";
 * const pacing = new LogPacing(() => -Infinity); // no other request ever
 * for (let trace = 0; trace < 1000; trace++) {
 *   // ... some work ...
 *   await pacing.pause(); // now and then a turn of the event loop
 * }
 * ```
 *
 * @module
 */

/** The slice while other requests come, in ms: a turn at every pause point. */
export const BUSY_SLICE_MS = 0;
/** The slice while none comes, in ms. */
export const IDLE_SLICE_MS = 50;
/** Other requests count as coming for this long after the last one arrived, in ms. */
const BUSY_FOR_MS = 1000;

/** See the module doc. */
export class LogPacing {
  readonly #lastArrival: () => number;
  /** When the log's own request arrived: it is not other traffic. */
  readonly #start: number;
  #since = performance.now();

  /**
   * @param lastArrival when the last request arrived (`performance.now()` ms)
   * @param start when the log's own request arrived
   */
  constructor(lastArrival: () => number, start = -Infinity) {
    this.#lastArrival = lastArrival;
    this.#start = start;
  }

  /** Whether other requests are coming (one arrived in the last second, besides the log's own). */
  get busy(): boolean {
    const last = this.#lastArrival();
    return last > this.#start && performance.now() - last < BUSY_FOR_MS;
  }

  /** A turn of the event loop once the slice is over (resolving when it is taken); else none. */
  pause(): Promise<void> | undefined {
    const now = performance.now();
    const slice = this.busy ? BUSY_SLICE_MS : IDLE_SLICE_MS;
    if (now - this.#since < slice) return undefined;
    return new Promise((resolve) =>
      setTimeout(() => {
        this.#since = performance.now();
        resolve();
      }, 0)
    );
  }
}
