/**
 * The request pipeline: an ordered list of steps, each `(context, next) => Response`, composed
 * once when the app is built (no closure per request). A step may respond at once, or call
 * `next` and work on its response, as Hono's and Koa's middleware do.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compose, type Step } from "./compose.ts";
 * import { RequestContext } from "./context.ts";
 * const order: string[] = [];
 * const step = (name: string): Step => async (context, next) => {
 *   order.push(name);
 *   return await next(context);
 * };
 * const handle = compose([step("a"), step("b")], () => Promise.resolve(new Response("end")));
 * const response = await handle(new RequestContext(new Request("http://localhost/"), false));
 * assert.equal(await response.text(), "end");
 * assert.deepEqual(order, ["a", "b"]);
 * ```
 *
 * @module
 */

import type { RequestContext } from "./context.ts";

/** Answers a request, from its context. */
export type Handler = (context: RequestContext) => Promise<Response>;

/** One step of the pipeline: responds, or passes the request on to `next`. */
export type Step = (context: RequestContext, next: Handler) => Promise<Response>;

/** `steps` in order, ending in `last`, as one handler. */
export function compose(steps: readonly Step[], last: Handler): Handler {
  return steps.reduceRight<Handler>((next, step) => (context) => step(context, next), last);
}
