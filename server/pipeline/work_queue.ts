/**
 * Lets heavy requests through one per turn of the event loop. Parsing a 1 MiB body, or writing
 * a 60,000-row answer, is tens to hundreds of milliseconds of work on the thread that also
 * accepts connections and answers `/healthz`; when several such requests become ready in the
 * same turn (their bodies completed together, or their rows shared one model run), their work
 * would run back to back and a health probe would wait for all of it. Each heavy section awaits
 * {@link WorkQueue.turn} first: the queue releases one waiter per timer turn, so the event
 * loop polls its sockets between two heavy sections and a probe waits for one at most.
 *
 * The waiters form the server's queue for its own thread: a waiter may carry a deadline and a
 * signal, and one whose deadline passes, or whose signal aborts, leaves the line with `false`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { WorkQueue } from "./work_queue.ts";
 * const workQueue = new WorkQueue();
 * const order: number[] = [];
 * await Promise.all([1, 2, 3].map(async (n) => {
 *   await workQueue.turn();
 *   order.push(n);
 * }));
 * assert.deepEqual(order, [1, 2, 3]); // first come, first through
 * ```
 *
 * @module
 */

/** See the module doc. */
export class WorkQueue {
  readonly #waiting: Waiter[] = [];
  #scheduled = false;
  /** When the last waiter was let through, while others waited; 0 when the line was empty. */
  #lastRelease = 0;
  /** The average time between two releases in a row, in ms (a section and a loop turn). */
  #turnMs = 0;

  /** Waiters not let through yet. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /**
   * How long the first waiter in line has waited, in ms; 0 when nobody waits.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { WorkQueue } from "./work_queue.ts";
   * assert.equal(new WorkQueue().oldestWaitMs, 0);
   * ```
   */
  get oldestWaitMs(): number {
    const first = this.#waiting[0];
    return first === undefined ? 0 : performance.now() - first.since;
  }

  /**
   * How long a newcomer would wait, in ms: the waiters ahead of it times the recent time
   * between two releases (which holds the heavy section each release lets run).
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { WorkQueue } from "./work_queue.ts";
   * assert.equal(new WorkQueue().expectedWaitMs, 0);
   * ```
   */
  get expectedWaitMs(): number {
    return this.#waiting.length * this.#turnMs;
  }

  /**
   * Resolves on a turn of the event loop of its own, after the waiters that came before.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { WorkQueue } from "./work_queue.ts";
   * const workQueue = new WorkQueue();
   * let through = false;
   * const turn = workQueue.turn().then(() => (through = true));
   * await Promise.resolve();
   * assert.equal(through, false); // not within the same turn
   * await turn;
   * assert.equal(through, true);
   * ```
   */
  turn(): Promise<void> {
    const { promise, resolve } = Promise.withResolvers<void>();
    this.#waiting.push({
      since: performance.now(),
      deadline: Infinity,
      signal: undefined,
      settle: () => resolve(),
    });
    this.#schedule();
    return promise;
  }

  /**
   * As {@link WorkQueue.turn}, but gives up when `performance.now()` passes `deadline` or
   * `signal` aborts before the turn comes: resolves `true` when let through, else `false`.
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { WorkQueue } from "./work_queue.ts";
   * const workQueue = new WorkQueue();
   * assert.equal(await workQueue.turnBefore(performance.now() + 60_000), true);
   * assert.equal(await workQueue.turnBefore(performance.now() - 1), false); // already late
   * ```
   */
  turnBefore(deadline: number, signal?: AbortSignal): Promise<boolean> {
    const { promise, resolve } = Promise.withResolvers<boolean>();
    this.#waiting.push({ since: performance.now(), deadline, signal, settle: resolve });
    this.#schedule();
    return promise;
  }

  #schedule(): void {
    if (this.#scheduled || this.#waiting.length === 0) return;
    this.#scheduled = true;
    setTimeout(() => {
      this.#scheduled = false;
      // Those that gave up leave the line without using a turn.
      const now = performance.now();
      if (this.#lastRelease > 0) {
        this.#turnMs = this.#turnMs === 0
          ? now - this.#lastRelease
          : 0.7 * this.#turnMs + 0.3 * (now - this.#lastRelease);
      }
      let next = this.#waiting.shift();
      while (next && (next.deadline < now || next.signal?.aborted)) {
        next.settle(false);
        next = this.#waiting.shift();
      }
      next?.settle(true);
      this.#lastRelease = next !== undefined && this.#waiting.length > 0 ? now : 0;
      this.#schedule();
    }, 0);
  }
}

interface Waiter {
  readonly since: number;
  readonly deadline: number;
  readonly signal: AbortSignal | undefined;
  readonly settle: (through: boolean) => void;
}
