/**
 * Finds tracked files that point outside the repository at the design notes it grew beside
 * (the `shared` folder next to the checkout, by a relative or an absolute path): the repository
 * must stand alone, in a clone and on JSR.
 * `deno task check` runs this file; it exits 1 and names each file and line it finds.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sharedReferences } from "./standalone.ts";
 * const bytes = new TextEncoder().encode("see SPEC.md\nsee the design notes\n");
 * assert.deepEqual(sharedReferences("README.md", bytes), []);
 * ```
 *
 * @module
 */

// Written as a pattern so that this file does not match itself.
const OUTSIDE = /(?:\.\.|\/work)\/shared\b/;

/** One reference found: the file, its 1-based line and the line's text. */
export interface SharedReference {
  readonly path: string;
  readonly line: number;
  readonly text: string;
}

/** The lines of one file's bytes that refer to the shared folder outside the repository. */
export function sharedReferences(path: string, bytes: Uint8Array): SharedReference[] {
  // Binary files are decoded too: a reference inside them would still leak.
  const lines = new TextDecoder("utf-8", { fatal: false }).decode(bytes).split("\n");
  const found: SharedReference[] = [];
  lines.forEach((text, i) => {
    if (OUTSIDE.test(text)) found.push({ path, line: i + 1, text: text.trim().slice(0, 160) });
  });
  return found;
}

/** The paths git tracks under `root` (deleted-but-unstaged files left out). */
export async function trackedFiles(root: URL): Promise<string[]> {
  const output = await new Deno.Command("git", {
    args: ["ls-files", "-z", "--cached"],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    throw new Error(`git ls-files failed: ${new TextDecoder().decode(output.stderr).trim()}`);
  }
  return new TextDecoder().decode(output.stdout).split("\0").filter((p) => p !== "");
}

/** Every reference to the shared folder in the repository's tracked files. */
export async function findSharedReferences(root: URL): Promise<SharedReference[]> {
  const found: SharedReference[] = [];
  for (const path of await trackedFiles(root)) {
    let bytes: Uint8Array;
    try {
      bytes = await Deno.readFile(new URL(path, root));
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) continue; // deleted in the work tree
      throw error;
    }
    found.push(...sharedReferences(path, bytes));
  }
  return found;
}

if (import.meta.main) {
  const found = await findSharedReferences(new URL("../../", import.meta.url));
  for (const { path, line, text } of found) {
    console.error(`${path}:${line}: refers outside the repository: ${text}`);
  }
  Deno.exit(found.length === 0 ? 0 : 1);
}
