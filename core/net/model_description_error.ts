/**
 * The error a model description that breaks the format's rules is refused with: every problem
 * found, each with its JSON path.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ModelDescriptionError } from "./model_description_error.ts";
 * const error = new ModelDescriptionError([{ path: "format", message: "expected 'x'" }]);
 * assert.equal(error.message, "format: expected 'x'");
 * ```
 *
 * @module
 */

/**
 * One problem of a model description: where (`net.arcs[3]`,
 * `net.structural_guards.t_x.op`) and what, naming the offending id.
 *
 * @example
 * ```ts
 * import type { ModelIssue } from "./parse.ts";
 * const issue: ModelIssue = {
 *   path: "net.arcs[3]",
 *   message: "arc 'p_a' -> 'p_b' connects two places",
 * };
 * ```
 */
export interface ModelIssue {
  /** The JSON path of the offending value, e.g. `parameters.arc_weights[2].weight`. */
  readonly path: string;
  /** What is wrong, quoting the offending id as Python's `repr` would; no final period. */
  readonly message: string;
}

/**
 * Thrown by {@link parseModelDescription} with every problem found; the message holds one
 * `path: message` line per issue.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ModelDescriptionError, parseModelDescription } from "./parse.ts";
 * assert.throws(() => parseModelDescription({ format: "petri-net-model/2" }), (error) => {
 *   assert.ok(error instanceof ModelDescriptionError);
 *   // Every problem at once: the format, and each missing section.
 *   assert.equal(error.issues[0]!.path, "format");
 *   return true;
 * });
 * ```
 */
export class ModelDescriptionError extends Error {
  /** Every problem found, in document order. */
  readonly issues: readonly ModelIssue[];

  /**
   * Builds the error from its issues (at least one).
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { ModelDescriptionError } from "./model_description_error.ts";
   * const error = new ModelDescriptionError([
   *   { path: "format", message: "expected 'petri-net-model/1'" },
   *   { path: "net", message: "expected an object, got nothing" },
   * ]);
   * assert.equal(error.message, "format: expected 'petri-net-model/1'\nnet: expected an object, got nothing");
   * ```
   */
  constructor(issues: readonly ModelIssue[]) {
    super(issues.map(({ path, message }) => `${path}: ${message}`).join("\n"));
    this.name = "ModelDescriptionError";
    this.issues = issues;
  }
}
