/**
 * The table of operations, in the order the documents and the playground list them: the
 * routes, the OpenAPI document, the request parser and the playground's forms all iterate it,
 * so adding an operation is one file in `core/ops` and one row here.
 *
 * @module
 */

import { anomalyOperation } from "./anomaly.ts";
import { counterfactualOperation } from "./counterfactual.ts";
import { forwardOperation } from "./forward.ts";
import type { AnyOperation, RequestOf } from "./operation.ts";
import { sensitivityOperation } from "./sensitivity.ts";

/** The operations, in the order they are listed. */
export const OPERATIONS = [
  forwardOperation,
  anomalyOperation,
  counterfactualOperation,
  sensitivityOperation,
] as const;

/** The table's type: a tuple of its rows. */
export type Operations = typeof OPERATIONS;

/** The name of an operation of the table. */
export type OperationName = Operations[number]["name"];

/** The request type of each operation of the table, by name. */
export type RequestTypes = {
  readonly [O in Operations[number] as O["name"]]: RequestOf<O>;
};

/** Any table of operations (the built-in one, or one with operations added). */
export type OperationTable = readonly AnyOperation[];
