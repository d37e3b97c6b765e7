/**
 * The repository's own files that entry modules load, from `deno info --json` (static, dynamic
 * and type imports, text imports included), relative to the repository's root.
 *
 * @example
 * ```ts
 * import { moduleGraph } from "./module_graph.ts";
 * const files = await moduleGraph(["adapter/deno/main.ts"]);
 * files.includes("server/app.ts"); // true
 * ```
 *
 * @module
 */

import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);

/** What `deno info --json ENTRY` prints, run from the repository's root, parsed. */
export async function denoInfo<T = { modules: { specifier: string }[] }>(
  entry: string,
): Promise<T> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
  return JSON.parse(new TextDecoder().decode(output.stdout)) as T;
}

/** The repository's own files in the module graphs of `entries` (root-relative paths). */
export async function moduleGraph(entries: readonly string[]): Promise<string[]> {
  const files = new Set<string>();
  for (const entry of entries) {
    const { modules } = await denoInfo(entry);
    for (const { specifier } of modules) {
      if (specifier.startsWith(ROOT.href)) {
        files.add(decodeURIComponent(specifier.slice(ROOT.href.length)));
      }
    }
  }
  return [...files];
}

/**
 * The repository's tracked files (what a clone holds), root-relative.
 *
 * @example
 * ```ts
 * import { trackedFiles } from "./module_graph.ts";
 * (await trackedFiles()).includes("deno.json"); // true
 * ```
 */
export async function trackedFiles(): Promise<string[]> {
  const output = await new Deno.Command("git", {
    args: ["ls-files", "-z"],
    cwd: ROOT,
    stdout: "piped",
  }).output();
  return new TextDecoder().decode(output.stdout).split("\0").filter((path) => path !== "");
}
