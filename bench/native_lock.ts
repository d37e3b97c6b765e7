/**
 * The `deno run` flag for a test or benchmark process that loads onnxruntime-node (with
 * `--allow-ffi` or `-A`): `--lock` on a copy of deno.lock. Resolving the package adds it to the
 * lock file, and the repository's must not name it (tests/layout/native_package_test.ts), so
 * native runs write to a temporary copy, removed when this process ends.
 *
 * Making the copy also fetches the package into Deno's cache, once, in a process of its own: on a
 * fresh cache (a new CI machine) the first process to load it prints download lines and a notice
 * about its ignored build script on stderr, which would come before a server's address line.
 *
 * @example
 * ```ts
 * import { nativeLockFlag } from "./native_lock.ts";
 * const args = ["run", "--allow-read", "--allow-ffi", nativeLockFlag(), "cli.ts"];
 * ```
 *
 * @module
 */

import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { ONNXRUNTIME_NODE } from "../adapter/deno/native_ort.ts";

const ROOT = new URL("../", import.meta.url);

/** Lock copies by checkout root. */
const copies = new Map<string, string>();

/**
 * The lock copy of checkout `root` (made, and the package cached, on first use), removed when
 * the process unloads.
 */
function lockCopy(root: URL): string {
  let copy = copies.get(root.href);
  if (copy === undefined) {
    const path = Deno.makeTempFileSync({ prefix: "petri_native_", suffix: ".deno.lock" });
    Deno.copyFileSync(new URL("deno.lock", root), path);
    globalThis.addEventListener("unload", () => {
      try {
        Deno.removeSync(path);
      } catch {
        // Already removed (an unload dispatched before `Deno.exit`).
      }
    });
    cachePackage(path, root);
    copy = path;
    copies.set(root.href, copy);
  }
  return copy;
}

/** Loads onnxruntime-node once in a `deno eval` of its own, so that it is in Deno's cache. */
function cachePackage(lock: string, root: URL): void {
  const { success, stderr } = new Deno.Command(Deno.execPath(), {
    args: ["eval", `--lock=${lock}`, `await import(${JSON.stringify(ONNXRUNTIME_NODE)});`],
    cwd: root,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).outputSync();
  if (!success) {
    throw new Error(
      `${ONNXRUNTIME_NODE} could not be fetched:\n${new TextDecoder().decode(stderr)}`,
    );
  }
}

/**
 * `--lock=<copy>`, the copy of the deno.lock of checkout `root` (default: this one) made (and
 * onnxruntime-node cached) on the first call for it: a benchmark that runs another checkout
 * (`--baseline DIR`) gives that checkout's own lock to the processes it starts there.
 *
 * @example
 * ```ts
 * import { nativeLockFlag } from "./native_lock.ts";
 * nativeLockFlag().startsWith("--lock="); // true
 * ```
 */
export function nativeLockFlag(root: string | URL = ROOT): string {
  const url = typeof root === "string" ? pathToFileURL(`${resolve(root)}/`) : root;
  return `--lock=${lockCopy(url)}`;
}
