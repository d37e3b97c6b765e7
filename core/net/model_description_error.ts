/**
 * The error a model description that breaks the format's rules is refused with: every problem
 * found, each with its JSON path.
 *
 * @module
 */

/** One problem of a model description: where (`net.arcs[3]`) and what, naming the offending id. */
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
 * import { ModelDescriptionError } from "./model_description_error.ts";
 * const error = new ModelDescriptionError([
 *   { path: "format", message: "expected 'petri-net-model/1'" },
 *   { path: "net", message: "expected an object, got nothing" },
 * ]);
 * assert.equal(error.message, "format: expected 'petri-net-model/1'\nnet: expected an object, got nothing");
 * ```
 */
export class ModelDescriptionError extends Error {
  /** Every problem found, in document order. */
  readonly issues: readonly ModelIssue[];

  /** Builds the error from its issues (at least one). */
  constructor(issues: readonly ModelIssue[]) {
    super(issues.map(({ path, message }) => `${path}: ${message}`).join("\n"));
    this.name = "ModelDescriptionError";
    this.issues = issues;
  }
}
