/**
 * Shared test material: the example model descriptions, compiled in memory, and the
 * single-threaded `onnxruntime-web` module.
 *
 * @example
 * ```ts
 * import { exampleModel } from "./fixtures.ts";
 * const model = await exampleModel("rest_serving");
 * ```
 *
 * @module
 */

import assert from "node:assert/strict";
import { parseModelDescription } from "../../core/net/parse.ts";
import type { PetriModel } from "../../core/net/types.ts";

export { ORT } from "../ort.ts";

/** The example models under `examples/`. */
export const EXAMPLES = ["rest_serving", "credit_approval_coloured"] as const;

/** An example's name. */
export type ExampleName = typeof EXAMPLES[number];

/** The URL of a file of an example. */
export function exampleFile(name: ExampleName, suffix: string): URL {
  return new URL(`../../examples/${name}/${name}${suffix}`, import.meta.url);
}

/** Parses `examples/NAME/NAME.model.json`. */
export async function exampleModel(name: ExampleName): Promise<PetriModel> {
  const text = await Deno.readTextFile(exampleFile(name, ".model.json"));
  return parseModelDescription(JSON.parse(text));
}

/** A deterministic pseudo-random number generator (mulberry32) in [0, 1). */
export { mulberry32 as random } from "../random.ts";

/** Asserts that `fn` throws an instance of `type` whose message contains `text`. */
export function assertThrowsWith(
  fn: () => unknown,
  type: abstract new (...args: never[]) => Error,
  text: string,
): void {
  assert.throws(fn, (error: unknown) => checkError(error, type, text));
}

/** Asserts that `fn` rejects with an instance of `type` whose message contains `text`. */
export async function assertRejectsWith(
  fn: () => Promise<unknown>,
  type: abstract new (...args: never[]) => Error,
  text: string,
): Promise<Error> {
  let caught: Error | undefined;
  await assert.rejects(fn, (error: unknown) => {
    checkError(error, type, text);
    caught = error as Error;
    return true;
  });
  return caught!;
}

function checkError(
  error: unknown,
  type: abstract new (...args: never[]) => Error,
  text: string,
): true {
  assert.ok(error instanceof type, `expected a ${type.name}, got ${String(error)}`);
  assert.ok(
    error.message.includes(text),
    `message ${JSON.stringify(error.message)} lacks ${JSON.stringify(text)}`,
  );
  return true;
}
