/**
 * Lets heavy sections (parsing a large body, writing a large response) through one per turn of
 * the event loop, so that several ready at once do not run back to back while a health probe
 * waits for all of them. A waiter whose deadline passes or signal aborts leaves with `false`, as do
 * all of them once the queue's `cutoff` aborts.
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
  readonly #cutoff: AbortSignal | undefined;
  readonly #waiting: Waiter[] = [];
  #scheduled = false;
  /** When the last waiter was let through, while others waited; 0 when the line was empty. */
  #lastRelease = 0;
  /** The average time between two releases in a row, in ms (a section and a loop turn). */
  #turnMs = 0;

  /** @param cutoff once aborted, every waiter of {@link WorkQueue.turnBefore} leaves with `false` */
  constructor(cutoff?: AbortSignal) {
    this.#cutoff = cutoff;
  }

  /** Waiters not let through yet. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** How long the first waiter in line has waited, in ms; 0 when nobody waits. */
  get oldestWaitMs(): number {
    const first = this.#waiting[0];
    return first === undefined ? 0 : performance.now() - first.since;
  }

  /**
   * How long a newcomer would wait, in ms: the waiters ahead of it times the recent time
   * between two releases (which holds the heavy section each release lets run).
   */
  get expectedWaitMs(): number {
    return this.#waiting.length * this.#turnMs;
  }

  /** Resolves on a turn of the event loop of its own, after the waiters that came before. */
  turn(): Promise<void> {
    const { promise, resolve } = Promise.withResolvers<void>();
    this.#waiting.push({
      since: performance.now(),
      deadline: Infinity,
      cancellable: false,
      signal: undefined,
      settle: () => resolve(),
    });
    this.#schedule();
    return promise;
  }

  /**
   * As {@link WorkQueue.turn}, but gives up when `performance.now()` passes `deadline`, or
   * `signal` or the queue's cutoff aborts, before the turn comes: resolves `true` when let
   * through, else `false`.
   */
  turnBefore(deadline: number, signal?: AbortSignal): Promise<boolean> {
    const { promise, resolve } = Promise.withResolvers<boolean>();
    this.#waiting.push({
      since: performance.now(),
      deadline,
      cancellable: true,
      signal,
      settle: resolve,
    });
    this.#schedule();
    return promise;
  }

  #gaveUp(waiter: Waiter): boolean {
    return waiter.cancellable && this.#cutoff?.aborted === true;
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
      while (next && (next.deadline < now || next.signal?.aborted || this.#gaveUp(next))) {
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
  /** Whether it leaves once the cutoff aborts ({@link WorkQueue.turnBefore}). */
  readonly cancellable: boolean;
  readonly deadline: number;
  readonly signal: AbortSignal | undefined;
  readonly settle: (through: boolean) => void;
}
