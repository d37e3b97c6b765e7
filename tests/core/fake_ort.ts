/**
 * A fake ORT module for the queue tests of `core/runtime/`: its runs finish only when the test
 * says so (`finish()`, or `fail(error)`), so a test can observe what waits in the queue. A run's
 * `transitions` output is the sum of each row's marking; `places` echo the marking.
 *
 * @example
 * ```ts
 * import { fakeOrt } from "./fake_ort.ts";
 * const fake = fakeOrt();
 * fake.runs.length; // 0 until a session runs
 * ```
 *
 * @module
 */

import type { OrtModule } from "../../core/runtime/mod.ts";

/** One run the fake has been asked for, waiting for the test to end it. */
export interface FakeRun {
  readonly batch: number;
  readonly withGradient: boolean;
  /** Ends the run with its outputs. */
  readonly finish: () => void;
  /** Ends the run with `error`. */
  readonly fail: (error: Error) => void;
}

/**
 * The fake module, the runs asked of it, how many sessions it released and created; `failCreates`
 * makes the next `InferenceSession.create` calls fail.
 *
 * @example
 * ```ts
 * import { fakeOrt } from "./fake_ort.ts";
 * const fake = fakeOrt();
 * fake.failCreates(1); // the next session cannot be created
 * ```
 */
export function fakeOrt() {
  const runs: FakeRun[] = [];
  let released = 0;
  let created = 0;
  let failingCreates = 0;
  class Tensor {
    constructor(
      readonly type: string,
      readonly data: Float32Array | readonly boolean[],
      readonly dims: readonly number[],
    ) {}
  }
  const session = {
    inputNames: [],
    outputNames: ["transitions", "places", "grad_marking", "grad_values"],
    run(feeds: Record<string, Tensor>) {
      const marking = feeds.marking!;
      const [batch, P] = marking.dims as [number, number];
      const withGradient = (feeds.with_gradient!.data as boolean[])[0]!;
      const { promise, resolve, reject } = Promise.withResolvers<Record<string, Tensor>>();
      // transitions[r] = sum of the row's marking; places echo the marking.
      const data = marking.data as Float32Array;
      const sums = Float32Array.from(
        { length: batch },
        (_, r) => data.subarray(r * P, (r + 1) * P).reduce((a, b) => a + b, 0),
      );
      const grad = new Float32Array(withGradient ? batch * P : 0).fill(1);
      runs.push({
        batch,
        withGradient,
        finish: () =>
          resolve({
            transitions: new Tensor("float32", sums, [batch, 1]),
            places: new Tensor("float32", data.slice(), [batch, P]),
            grad_marking: new Tensor("float32", grad, [withGradient ? batch : 0, P]),
            grad_values: new Tensor("float32", grad.slice(), [withGradient ? batch : 0, P]),
          }),
        fail: reject,
      });
      return promise;
    },
    release() {
      released++;
      return Promise.resolve();
    },
  };
  const ort = {
    InferenceSession: {
      create() {
        if (failingCreates > 0) {
          failingCreates--;
          return Promise.reject(new Error("cannot create"));
        }
        created++;
        return Promise.resolve(session);
      },
    },
    Tensor,
  } as unknown as OrtModule;
  return {
    ort,
    runs,
    released: () => released,
    created: () => created,
    failCreates: (n: number) => void (failingCreates = n),
  };
}

/**
 * Lets queued microtasks and the fake's bookkeeping settle.
 *
 * @example
 * ```ts
 * import { settle } from "./fake_ort.ts";
 * await settle();
 * ```
 */
export const settle = (): Promise<unknown> => new Promise((resolve) => setTimeout(resolve, 0));
