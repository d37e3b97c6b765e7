/**
 * Small helpers for calling an app without a socket and checking numbers.
 *
 * @example
 * ```ts
 * import { post } from "./http.ts";
 * declare const app: import("../../server/app.ts").App;
 * const { status, body } = await post(app, "/forward", { input_marking: {} });
 * ```
 *
 * @module
 */

import { AssertionError } from "node:assert/strict";
import type { App } from "../../server/app.ts";

/** A decoded answer. */
export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  // deno-lint-ignore no-explicit-any
  readonly body: any;
}

/**
 * POSTs `body` (JSON-encoded unless it is already a string) and decodes the JSON answer.
 *
 * @example
 * ```ts
 * import { post } from "./http.ts";
 * declare const app: import("../../server/app.ts").App;
 * (await post(app, "/forward", "not json")).status; // 422
 * ```
 */
export async function post(
  app: App,
  path: string,
  body: unknown,
  headers: Record<string, string> = { "content-type": "application/json" },
): Promise<Answer> {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  return await decode(
    await app.fetch(
      new Request(`http://localhost${path}`, { method: "POST", body: text, headers }),
    ),
  );
}

/**
 * GETs `path` and decodes the JSON answer.
 *
 * @example
 * ```ts
 * import { get } from "./http.ts";
 * declare const app: import("../../server/app.ts").App;
 * (await get(app, "/healthz")).body.status; // "ok"
 * ```
 */
export async function get(app: App, path: string): Promise<Answer> {
  return await decode(await app.fetch(new Request(`http://localhost${path}`)));
}

/**
 * Decodes a response's JSON body (fails when it is not `application/json`).
 *
 * @example
 * ```ts
 * import { decode } from "./http.ts";
 * (await decode(Response.json({ a: 1 }))).body.a; // 1
 * ```
 */
export async function decode(response: Response): Promise<Answer> {
  const type = response.headers.get("content-type") ?? "";
  const text = await response.text();
  if (!type.startsWith("application/json")) {
    throw new AssertionError({ message: `content-type is "${type}", body ${text.slice(0, 200)}` });
  }
  return { status: response.status, headers: response.headers, body: JSON.parse(text) };
}

/**
 * Asserts |actual − expected| <= atol.
 *
 * @example
 * ```ts
 * import { assertClose } from "./http.ts";
 * assertClose(0.1 + 0.2, 0.3, 1e-12);
 * ```
 */
export function assertClose(actual: unknown, expected: number, atol: number, what = "value"): void {
  if (typeof actual !== "number" || !(Math.abs(actual - expected) <= atol)) {
    throw new AssertionError({
      message: `${what} is ${actual}, expected ${expected} within ${atol}`,
      actual,
      expected,
    });
  }
}
