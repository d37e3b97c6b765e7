/**
 * The one error the log readers throw; its message starts with the input's name and says where
 * and what (`traces.xes: malformed XML at line 12, column 5: unexpected close tag`).
 *
 * @module
 */

/** Thrown by every trace reader for input it cannot turn into traces. */
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

/** The display name messages use when the caller gives none. */
export const DEFAULT_NAME = "traces";

/** The message of any thrown value, without a final period, for quoting inside our messages. */
export function errorText(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/\.\s*$/, "");
}
