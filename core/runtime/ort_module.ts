/**
 * The part of an ONNX Runtime JavaScript module that petri-serve uses: subsets of
 * `onnxruntime-common`'s types, so that its types stay out of this package's API.
 *
 * @module
 */

/** Options of `InferenceSession.create` (ORT's `SessionOptions`), passed through unread. */
export type OrtSessionOptions = object;

/** The part of an ORT `Tensor` that petri-serve reads. */
export interface OrtTensor {
  /** The elements; a `Float32Array` for the graph's float outputs. */
  readonly data: unknown;
}

/** The part of an ORT `InferenceSession` that `ModelSession` (`session.ts`) uses. */
export interface OrtSession {
  /** The graph's output names (`grad_marking` among them when it has gradients). */
  readonly outputNames: readonly string[];
  /** Runs the graph on tensors by input name; answers tensors by output name. */
  run(feeds: Readonly<Record<string, OrtTensor>>): Promise<Readonly<Record<string, OrtTensor>>>;
  /** Frees the session's resources. */
  release(): Promise<void>;
}

/**
 * The part of an ONNX Runtime JavaScript module that petri-serve uses. The namespaces of
 * `onnxruntime-web`, `onnxruntime-node` and `onnxruntime-common` all satisfy it.
 *
 * @example
 * ```ts
 * import * as ort from "onnxruntime-web";
 * import type { OrtModule } from "./ort_module.ts";
 * const runtime: OrtModule = ort;
 * ```
 */
export interface OrtModule {
  /** Creates sessions from model bytes. */
  readonly InferenceSession: {
    create(bytes: Uint8Array, options?: OrtSessionOptions): Promise<OrtSession>;
  };
  /** Builds CPU tensors. */
  readonly Tensor: new (
    type: "float32" | "bool",
    data: Float32Array | readonly boolean[],
    dims: readonly number[],
  ) => OrtTensor;
}
