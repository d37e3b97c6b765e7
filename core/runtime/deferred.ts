/**
 * A promise with the functions that settle it, as `Promise.withResolvers` gives them, written
 * out for runtimes that lack it (Node 20, which the Node consumer test runs on).
 *
 * @module
 */

/** A promise and the functions that resolve or reject it. */
export interface Deferred<T> {
  /** Settles when {@link Deferred.resolve} or {@link Deferred.reject} is called. */
  readonly promise: Promise<T>;
  /** Resolves the promise. */
  readonly resolve: (value: T | PromiseLike<T>) => void;
  /** Rejects the promise. */
  readonly reject: (reason?: unknown) => void;
}

/**
 * A new pending promise with its resolve and reject functions.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { deferred } from "./deferred.ts";
 * const { promise, reject } = deferred<void>();
 * reject(new Error("gone"));
 * await assert.rejects(promise, { message: "gone" });
 * ```
 */
export function deferred<T>(): Deferred<T> {
  let resolve!: Deferred<T>["resolve"];
  let reject!: Deferred<T>["reject"];
  const promise = new Promise<T>((resolveWith, rejectWith) => {
    resolve = resolveWith;
    reject = rejectWith;
  });
  return { promise, resolve, reject };
}
