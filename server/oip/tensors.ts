/**
 * The tensors of the protocol's `infer`: the model's inputs and outputs, by name.
 *
 * @module
 */

/** The input tensors `infer` takes, in the graph contract's order. */
export const INPUTS = ["marking", "marking_mask", "values", "values_mask"] as const;
/** The name of an input tensor. */
export type InputName = typeof INPUTS[number];

/** The output tensors `infer` returns (all of them unless the request names some). */
export const OUTPUTS = ["transitions", "places"] as const;
