/**
 * The `deno run` flag for a benchmark process that loads onnxruntime-node (with `--allow-ffi`
 * or `-A`): `--lock` on a copy of deno.lock. Resolving the package adds it to the lock file, and the
 * repository's must not name it (tests/layout/native_package_test.ts), so native runs write
 * to a temporary copy, removed when this process ends.
 *
 * @example
 * ```ts
 * import { nativeLockFlag } from "./native_lock.ts";
 * const args = ["run", "--allow-read", "--allow-ffi", nativeLockFlag(), "cli.ts"];
 * ```
 *
 * @module
 */

const ROOT = new URL("../", import.meta.url);

let copy: string | undefined;

/** The lock copy (made on first use), removed when the process unloads. */
function lockCopy(): string {
  if (copy === undefined) {
    const path = Deno.makeTempFileSync({ prefix: "petri_bench_native_", suffix: ".deno.lock" });
    Deno.copyFileSync(new URL("deno.lock", ROOT), path);
    globalThis.addEventListener("unload", () => {
      try {
        Deno.removeSync(path);
      } catch {
        // Already removed (an unload dispatched before `Deno.exit`).
      }
    });
    copy = path;
  }
  return copy;
}

/**
 * `--lock=COPY`: the flag a `deno run` of a native subprocess needs besides `--allow-ffi` (or
 * `-A`, which grants it and conflicts with it).
 *
 * @example
 * ```ts
 * import { nativeLockFlag } from "./native_lock.ts";
 * nativeLockFlag().startsWith("--lock="); // true
 * ```
 */
export function nativeLockFlag(): string {
  return `--lock=${lockCopy()}`;
}
