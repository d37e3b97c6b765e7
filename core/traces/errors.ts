/**
 * The one error the trace readers throw: the input cannot be read as traces. Its message
 * starts with the input's display name and says where and what, e.g.
 * `traces.xes: malformed XML at line 12, column 5: unexpected close tag`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TraceReadError } from "./errors.ts";
 * const error = new TraceReadError("traces.csv: the header has no column 'case_id'");
 * assert.ok(error instanceof Error);
 * assert.equal(error.message, "traces.csv: the header has no column 'case_id'");
 * ```
 *
 * @module
 */

/**
 * Thrown by every trace reader for input it cannot turn into traces (malformed text, a
 * missing column, a wrong shape). The message names the input and quotes the offending value;
 * it has no final period.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TraceReadError } from "./errors.ts";
 * assert.deepEqual(new TraceReadError("traces.json: the top level is not a list").name, "TraceReadError");
 * ```
 */
export class TraceReadError extends Error {
  /** Always `"TraceReadError"`. */
  override readonly name = "TraceReadError";

  /**
   * Builds the error.
   *
   * @param message the whole message, starting with the input's display name
   * @param options `cause`: the underlying parser or decoder error, if any
   */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/**
 * The display name messages use when the caller gives none.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DEFAULT_NAME } from "./errors.ts";
 * assert.deepEqual(DEFAULT_NAME, "traces");
 * ```
 */
export const DEFAULT_NAME = "traces";

/**
 * The message of any thrown value, without a final period, for quoting inside our messages.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { errorText } from "./errors.ts";
 * assert.deepEqual(errorText(new Error("unexpected close tag.")), "unexpected close tag");
 * ```
 */
export function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/\.\s*$/, "");
}
