/**
 * A model description file read from its bytes, with one message naming the file for
 * whatever else it turns out to be (an ONNX model, a `.pt` zip, an event log, a sidecar, text
 * that is not JSON) or for every problem of a description.
 *
 * @module
 */

import { describeKind, sniffFile } from "../bytes/file_kind.ts";
import { ModelDescriptionError } from "./model_description_error.ts";
import { parseModelDescription } from "./parse.ts";
import type { PetriModel } from "./types.ts";

/** Issues one error line names; the rest are counted. */
const SHOWN_ISSUES = 20;

/** A file that is not a valid model description; {@link DescriptionFileError.kind} says what it is. */
export class DescriptionFileError extends Error {
  /**
   * Builds the error.
   *
   * @param message the file and what is wrong with it
   * @param kind what the file holds, as `sniffFile` tells it
   */
  constructor(message: string, readonly kind: ReturnType<typeof sniffFile>) {
    super(message);
    this.name = "DescriptionFileError";
  }
}

/**
 * Reads the description in `bytes`; `name` is the file's name in messages.
 *
 * @throws {DescriptionFileError} for anything that is not a valid description.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readDescriptionFile } from "./read_description_file.ts";
 * const path = "examples/rest_serving/rest_serving.model.json";
 * const model = readDescriptionFile(await Deno.readFile(path), path);
 * assert.deepEqual(model.net.transitions, ["t_approve", "t_decline"]);
 * const log = new TextEncoder().encode('[{"events": ["submit"]}]');
 * assert.throws(() => readDescriptionFile(log, "log.json"), {
 *   message: "log.json is a JSON list (an event log?), not a model description",
 * });
 * ```
 */
export function readDescriptionFile(bytes: Uint8Array, name: string): PetriModel {
  const kind = sniffFile(bytes);
  if (kind !== "json") {
    const what = bytes.length === 0 ? "empty" : describeKind(kind);
    throw new DescriptionFileError(`${name} is ${what}, not a model description (JSON)`, kind);
  }
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (error) {
    const why = error instanceof TypeError ? "its text is not valid UTF-8" : printable(error);
    throw new DescriptionFileError(`${name} is not valid JSON (${why})`, kind);
  }
  if (Array.isArray(json)) {
    throw new DescriptionFileError(
      `${name} is a JSON list (an event log?), not a model description`,
      kind,
    );
  }
  const fields = json !== null && typeof json === "object" ? json : {};
  const sidecar = fields as { format?: unknown; net?: unknown; input_marking_spec?: unknown };
  if (
    sidecar.format === "petri-serve-bundle/1" ||
    (sidecar.net === undefined && sidecar.input_marking_spec !== undefined)
  ) {
    throw new DescriptionFileError(
      `${name} is a bundle's sidecar, not a model description; give the model file beside it`,
      kind,
    );
  }
  try {
    return parseModelDescription(json);
  } catch (error) {
    if (!(error instanceof ModelDescriptionError)) throw error;
    // On one line, as the format reports all problems at once.
    const total = error.issues.length;
    const issues = error.issues.slice(0, SHOWN_ISSUES).map(({ path, message }) =>
      `${path}: ${message}`
    );
    const count = total === 1 ? "1 issue" : `${total} issues`;
    const more = total > SHOWN_ISSUES ? `; and ${total - SHOWN_ISSUES} more` : "";
    throw new DescriptionFileError(
      `${name} is not a valid model description (${count}): ${issues.join("; ")}${more}`,
      kind,
    );
  }
}

/** An error's message with control characters shown as escapes, on one line. */
function printable(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(
    /[\p{Cc}\uFFFD]/gu,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
