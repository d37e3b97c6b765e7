/**
 * Rows per request, for the access log: {@link countRows} wraps the model an operation runs on
 * so that every row it sends to the model is counted against the request, and
 * {@link rowsOf} reads the count once the request is answered. A `WeakMap` keyed by the
 * `Request` keeps concurrent requests apart with no context threading through `core/ops`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { countRows, rowsOf } from "./request_rows.ts";
 * import { loadOrt } from "../adapter/deno/ort.ts";
 * import { readBundle } from "../adapter/deno/bundle_files.ts";
 * await using model = await readBundle(await loadOrt(), "examples/rest_serving");
 * const request = new Request("http://localhost/forward", { method: "POST" });
 * await countRows(model, request).run([{ marking: new Map() }], { withGradient: false });
 * assert.equal(rowsOf(request), 1);
 * ```
 *
 * @module
 */

import type { OpsModel } from "../core/ops/model.ts";

const rows = new WeakMap<Request, number>();

/**
 * `model`, with `run` counting rows against `request`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { countRows, rowsOf } from "./request_rows.ts";
 * import { loadOrt } from "../adapter/deno/ort.ts";
 * import { readBundle } from "../adapter/deno/bundle_files.ts";
 * await using model = await readBundle(await loadOrt(), "examples/rest_serving");
 * const request = new Request("http://localhost/");
 * const counted = countRows(model, request);
 * assert.equal(rowsOf(request), 0); // counted from now on, even if nothing runs
 * assert.equal(counted.net, model.net); // everything but run is the model's own
 * ```
 */
export function countRows(model: OpsModel, request: Request): OpsModel {
  rows.set(request, rows.get(request) ?? 0);
  const run: OpsModel["run"] = (batch, options) => {
    rows.set(request, (rows.get(request) ?? 0) + batch.length);
    return model.run(batch, options);
  };
  // A proxy, not a copy: the model's other members (getters, private fields) stay its own.
  return new Proxy(model, {
    get(target, key) {
      if (key === "run") return run;
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
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

/**
 * Adds `n` rows to `request`'s count (for handlers that run a session directly).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { addRows, rowsOf } from "./request_rows.ts";
 * const request = new Request("http://localhost/");
 * addRows(request, 3);
 * assert.equal(rowsOf(request), 3);
 * ```
 */
export function addRows(request: Request, n: number): void {
  rows.set(request, (rows.get(request) ?? 0) + n);
}
