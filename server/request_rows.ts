/**
 * Rows per request, for the access log: {@link rowCounter} gives the operations a model whose
 * `run` counts every row it sends against the request (and gives the run the request's signal
 * and deadline, `admission.ts`'s `runContextOf`, so that a client that hangs up withdraws its
 * rows and all of a request's runs share one deadline), and
 * {@link rowsOf} reads the count once the request is answered. A `WeakMap` keyed by the
 * `Request` keeps concurrent requests apart with no context threading through `core/ops`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rowCounter, rowsOf } from "./request_rows.ts";
 * import { loadOrt } from "../adapter/deno/ort.ts";
 * import { readBundle } from "../adapter/deno/bundle_files.ts";
 * await using model = await readBundle(await loadOrt(), "examples/rest_serving");
 * const request = new Request("http://localhost/forward", { method: "POST" });
 * await rowCounter(model)(request).run([{ marking: new Map() }], { withGradient: false });
 * assert.equal(rowsOf(request), 1);
 * ```
 *
 * @module
 */

import { type OpsModel, withRun } from "../core/ops/model.ts";
import { checkRequestRows } from "./request_limits.ts";
import { runContextOf } from "./admission.ts";

const rows = new WeakMap<Request, number>();

/**
 * For each request, `model` as the operations see it ({@link OpsModel}'s members only), with
 * `run` counting rows against the request and refusing (413, before the run) a batch that would
 * take the request past `maxRows`. `label` is bound once, here.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rowCounter, rowsOf } from "./request_rows.ts";
 * import { loadOrt } from "../adapter/deno/ort.ts";
 * import { readBundle } from "../adapter/deno/bundle_files.ts";
 * await using model = await readBundle(await loadOrt(), "examples/rest_serving");
 * const request = new Request("http://localhost/");
 * const counted = rowCounter(model)(request);
 * assert.equal(rowsOf(request), 0); // counted from now on, even if nothing runs
 * assert.equal(counted.net, model.net); // everything but run is the model's own
 * ```
 */
export function rowCounter(
  model: OpsModel,
  maxRows: number = Infinity,
): (request: Request) => OpsModel {
  // Everything but run, with label bound once here rather than per request.
  const base = withRun(model, model.run.bind(model));
  return (request) => {
    rows.set(request, rows.get(request) ?? 0);
    const context = runContextOf(request);
    return {
      ...base,
      run(batch, options) {
        const total = (rows.get(request) ?? 0) + batch.length;
        try {
          checkRequestRows(total, maxRows);
        } catch (error) {
          return Promise.reject(error);
        }
        rows.set(request, total);
        return model.run(batch, { ...options, ...context });
      },
    };
  };
}

/**
 * Rows run for `request` so far; `undefined` when it ran no operation.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { rowsOf } from "./request_rows.ts";
 * assert.equal(rowsOf(new Request("http://localhost/healthz")), undefined);
 * ```
 */
export function rowsOf(request: Request): number | undefined {
  return rows.get(request);
}
