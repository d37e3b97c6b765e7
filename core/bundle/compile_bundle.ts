/**
 * Compiles a model to its bundle: the ONNX bytes (self-describing: the net, module and
 * parameters ride as metadata) and the sidecar text.
 *
 * @module
 */

import { compileModel, type CompileOptions } from "../compile/mod.ts";
import { describeModel } from "../net/describe_model.ts";
import type { PetriModel } from "../net/types.ts";
import { PACKAGE_NAME, PACKAGE_VERSION } from "./version.ts";
import { type BundleOptions, createSidecar, formatSidecar } from "./sidecar.ts";

/** The `metadata_props` keys of a compiled model. */
export const METADATA_KEYS = {
  net: "petri_serve.net",
  module: "petri_serve.module",
  parameters: "petri_serve.parameters",
} as const;

/** A compiled bundle: the two files' contents and the graph's size. */
export interface CompiledBundle {
  /** The `.onnx` file. */
  readonly onnx: Uint8Array;
  /** The `.onnx.meta.json` file: keys sorted, indent 2, trailing newline. */
  readonly sidecar: string;
  /** ONNX nodes of the forward pass. */
  readonly forwardNodes: number;
  /** ONNX nodes of the gradient branch. */
  readonly gradientNodes: number;
}

/**
 * Compiles a model to its bundle.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseModelDescription } from "../net/parse.ts";
 * import { compileBundle } from "./compile_bundle.ts";
 * const petriModel = parseModelDescription(JSON.parse(
 *   await Deno.readTextFile("examples/rest_serving/rest_serving.model.json"),
 * ));
 * const bundle = await compileBundle(petriModel, { savedAt: new Date(0) });
 * assert.ok(bundle.forwardNodes > 0);
 * assert.match(bundle.sidecar, /"saved_at": "1970-01-01T00:00:00Z"/);
 * ```
 */
export async function compileBundle(
  model: PetriModel,
  options: BundleOptions & Pick<CompileOptions, "maxNodes"> = {},
): Promise<CompiledBundle> {
  const description = describeModel(model) as Record<string, unknown>;
  const producer = options.producer ?? { name: PACKAGE_NAME, version: PACKAGE_VERSION };
  const compiled = compileModel(model, {
    producer,
    ...(options.maxNodes === undefined ? {} : { maxNodes: options.maxNodes }),
    metadata: {
      [METADATA_KEYS.net]: JSON.stringify(description.net),
      [METADATA_KEYS.module]: JSON.stringify(description.module),
      [METADATA_KEYS.parameters]: JSON.stringify(description.parameters),
    },
  });
  // A plain Uint8Array of its own: the encoder may hand out a Node Buffer on a shared pool.
  const onnx = new Uint8Array(compiled.bytes);
  const sidecar = await createSidecar(model, onnx, { ...options, producer });
  return {
    onnx,
    sidecar: formatSidecar(sidecar),
    forwardNodes: compiled.forwardNodes,
    gradientNodes: compiled.gradientNodes,
  };
}
