/**
 * One timer for many deadlines of the same length (the request bodies' 408s) instead of a
 * `setTimeout` per request, which costs the serving thread under load: deadlines of one length
 * expire in the order they were added, so the timer only needs the oldest.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DeadlineSweep } from "./deadline_sweep.ts";
 * const sweep = new DeadlineSweep(10);
 * let expired = 0;
 * const done = sweep.add(() => expired++);
 * sweep.add(() => expired++);
 * done();
 * await new Promise((resolve) => setTimeout(resolve, 30));
 * assert.equal(expired, 1);
 * ```
 *
 * @module
 */

interface Deadline {
  readonly at: number;
  readonly onExpire: () => void;
}

/** Deadlines `ms` after they are added, swept by one timer. */
export class DeadlineSweep {
  readonly #ms: number;
  readonly #pending = new Set<Deadline>();
  #timer: ReturnType<typeof setTimeout> | undefined;

  /** */
  constructor(ms: number) {
    this.#ms = ms;
  }

  /**
   * Calls `onExpire` once `ms` have passed, unless the returned function is called first. The
   * timer is cleared whenever no deadline is pending, so an idle sweep holds no timer.
   */
  add(onExpire: () => void): () => void {
    const deadline = { at: performance.now() + this.#ms, onExpire };
    this.#pending.add(deadline);
    this.#timer ??= setTimeout(this.#sweep, this.#ms);
    return () => {
      this.#pending.delete(deadline);
      if (this.#pending.size === 0 && this.#timer !== undefined) {
        clearTimeout(this.#timer);
        this.#timer = undefined;
      }
    };
  }

  readonly #sweep = (): void => {
    this.#timer = undefined;
    const now = performance.now();
    for (const deadline of this.#pending) {
      if (deadline.at > now) {
        this.#timer = setTimeout(this.#sweep, deadline.at - now);
        return;
      }
      this.#pending.delete(deadline);
      deadline.onExpire();
    }
  };
}
