/**
 * What `batch` and `merge` say about the files they are given: why a file could not be read,
 * and whether an `--output` path is one of the inputs (writing it would replace a file while
 * it is being read).
 *
 * @module
 */

/**
 * Why reading a file failed: `no such file`, `it is a directory`, the missing read permission,
 * or the error's own message.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fileProblem } from "./file_problems.ts";
 * assert.equal(
 *   fileProblem(new Deno.errors.NotCapable("Requires read access")),
 *   "no read permission (run deno with --allow-read)",
 * );
 * assert.equal(fileProblem(new Error("disk on fire")), "disk on fire");
 * ```
 */
export function fileProblem(error: unknown): string {
  if (error instanceof Deno.errors.NotFound) return "no such file";
  if (error instanceof Deno.errors.IsADirectory) return "it is a directory";
  if (error instanceof Deno.errors.NotCapable) {
    return "no read permission (run deno with --allow-read)";
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * Whether `path` is the same file as one of `others`, links resolved. A path that does not
 * exist (or cannot be resolved) is no file, so it is never the same as another.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sameFile } from "./file_problems.ts";
 * assert.equal(await sameFile("./deno.json", ["deno.json"]), true);
 * assert.equal(await sameFile("missing.json", ["missing.json"]), false);
 * ```
 */
export async function sameFile(path: string, others: readonly string[]): Promise<boolean> {
  const real = (p: string) => Deno.realPath(p).catch(() => undefined);
  const target = await real(path);
  if (target === undefined) return false;
  for (const other of others) {
    if ((await real(other)) === target) return true;
  }
  return false;
}
