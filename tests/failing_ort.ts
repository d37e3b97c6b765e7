/**
 * An ORT module for tests that fails on demand: it wraps a real one (through the `OrtModule`
 * seam of `core/runtime/`) and, as a control file says, makes the next runs fail, makes
 * creating sessions fail, or slows runs down. Not part of the product: the tests' server entry
 * (`serve/failing_serve.ts`) passes it to `cli/serve.ts`'s `serveCommandWith`.
 *
 * The control file holds JSON `{"id": 1, "failRuns": 2, "failCreates": 0, "runDelayMs": 0}`:
 * each new `id` starts a new order; `failRuns` and `failCreates` count the failures still to
 * inject (warm-up runs of new sessions count as runs), `runDelayMs` delays every run that
 * does not fail. A missing file means: no failure, no delay.
 *
 * @example
 * ```ts
 * import { failingOrt, writeControl } from "./failing_ort.ts";
 * import { ORT } from "./ort.ts";
 * const path = await Deno.makeTempFile();
 * const ort = failingOrt(ORT, path);
 * await writeControl(path, { id: 1, failRuns: 1 });
 * // The next run of any session it creates fails with "injected run failure".
 * await Deno.remove(path);
 * void ort;
 * ```
 *
 * @module
 */

import type { OrtModule, OrtSession } from "../core/runtime/mod.ts";

/** One order of the control file. */
export interface Control {
  /** A new id starts a new order. */
  readonly id: number;
  /** Runs still to fail. */
  readonly failRuns?: number;
  /** `InferenceSession.create` calls still to fail. */
  readonly failCreates?: number;
  /** Delay of every run that does not fail, in ms. */
  readonly runDelayMs?: number;
}

/**
 * Writes `control` to `path` (atomically: a reader sees the old order or the new one).
 *
 * @example
 * ```ts
 * import { writeControl } from "./failing_ort.ts";
 * const path = await Deno.makeTempFile();
 * await writeControl(path, { id: 1, runDelayMs: 100 });
 * await Deno.remove(path);
 * ```
 */
export async function writeControl(path: string, control: Control): Promise<void> {
  await Deno.writeTextFile(`${path}.tmp`, JSON.stringify(control));
  await Deno.rename(`${path}.tmp`, path);
}

/** The order being carried out, per control file. */
const orders = new Map<
  string,
  { current: number; failRuns: number; failCreates: number; runDelayMs: number }
>();

/**
 * `ort` with failures injected as the control file at `controlPath` orders.
 *
 * @example
 * ```ts
 * import { failingOrt } from "./failing_ort.ts";
 * import { ORT } from "./ort.ts";
 * const ort = failingOrt(ORT, "/nonexistent"); // no file: behaves as ORT
 * void ort;
 * ```
 */
export function failingOrt(ort: OrtModule, controlPath: string): OrtModule {
  // One order per control file, whichever module counts it: a server's worker session and its
  // in-place session fail as one model.
  let state = orders.get(controlPath);
  if (state === undefined) {
    state = { current: -1, failRuns: 0, failCreates: 0, runDelayMs: 0 };
    orders.set(controlPath, state);
  }
  const order = state;
  const read = () => {
    let control: Control;
    try {
      control = JSON.parse(Deno.readTextFileSync(controlPath));
    } catch {
      return;
    }
    if (control.id === order.current) return;
    order.current = control.id;
    order.failRuns = control.failRuns ?? 0;
    order.failCreates = control.failCreates ?? 0;
    order.runDelayMs = control.runDelayMs ?? 0;
  };
  const wrap = (session: OrtSession): OrtSession => ({
    get outputNames() {
      return session.outputNames;
    },
    async run(feeds) {
      read();
      if (order.failRuns > 0) {
        order.failRuns--;
        throw new Error("injected run failure: V(...) is not a function");
      }
      if (order.runDelayMs > 0) {
        await new Promise((resolve) => setTimeout(resolve, order.runDelayMs));
      }
      return await session.run(feeds);
    },
    release: () => session.release(),
  });
  return {
    Tensor: ort.Tensor,
    InferenceSession: {
      async create(bytes, options) {
        read();
        if (order.failCreates > 0) {
          order.failCreates--;
          throw new Error("injected create failure: out of memory");
        }
        return wrap(await ort.InferenceSession.create(bytes, options));
      },
    },
  };
}
