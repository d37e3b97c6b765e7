/**
 * An output file that appears whole or not at all: bytes go to a temporary file in the same
 * directory (one file system, so the rename is atomic), renamed over the output path once
 * complete. A run killed half-way, even by SIGKILL, leaves nothing at the output path.
 *
 * @example
 * ```ts
 * import { AtomicFile } from "./atomic_file.ts";
 * import assert from "node:assert/strict";
 * const dir = await Deno.makeTempDir();
 * const file = await AtomicFile.create(`${dir}/out/scores.json`);
 * await file.write(new TextEncoder().encode("[]\n"));
 * await assert.rejects(Deno.stat(`${dir}/out/scores.json`));
 * await file.commit();
 * assert.equal(await Deno.readTextFile(`${dir}/out/scores.json`), "[]\n");
 * await Deno.remove(dir, { recursive: true });
 * ```
 *
 * @module
 */

import { InputError } from "../command.ts";

/**
 * A file written under a temporary name and renamed into place by {@link AtomicFile.commit}.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { AtomicFile } from "./atomic_file.ts";
 * const dir = await Deno.makeTempDir();
 * const file = await AtomicFile.create(`${dir}/scores.json`);
 * await file.abort(); // the temporary is removed; nothing appears at the path
 * assert.deepEqual([...Deno.readDirSync(dir)], []);
 * await Deno.remove(dir);
 * ```
 */
export class AtomicFile {
  #file: Deno.FsFile | undefined;

  private constructor(readonly path: string, readonly temporary: string, file: Deno.FsFile) {
    this.#file = file;
  }

  /**
   * Creates the temporary file beside `path` (and `path`'s parent directories).
   *
   * @throws {InputError} naming `path` when it cannot be written.
   */
  static async create(path: string): Promise<AtomicFile> {
    const slash = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
    const dir = path.slice(0, slash + 1);
    const random = crypto.getRandomValues(new Uint32Array(1))[0]!.toString(36);
    const temporary = `${dir}.${path.slice(slash + 1)}.${Deno.pid}-${random}.tmp`;
    try {
      if (slash > 0) await Deno.mkdir(path.slice(0, slash), { recursive: true });
      const file = await Deno.open(temporary, { write: true, createNew: true });
      return new AtomicFile(path, temporary, file);
    } catch (error) {
      throw new InputError(`cannot write ${path}: ${writeProblem(error)}`);
    }
  }

  /** Writes all of `bytes`. */
  async write(bytes: Uint8Array): Promise<void> {
    const file = this.#open();
    while (bytes.length > 0) bytes = bytes.subarray(await file.write(bytes));
  }

  /** Closes the temporary file and renames it to the output path. */
  async commit(): Promise<void> {
    this.#open().close();
    this.#file = undefined;
    try {
      await Deno.rename(this.temporary, this.path);
    } catch (error) {
      await Deno.remove(this.temporary).catch(() => {});
      throw new InputError(`cannot write ${this.path}: ${writeProblem(error)}`);
    }
  }

  /** Closes and removes the temporary file; the output path is left as it was. */
  async abort(): Promise<void> {
    this.#file?.close();
    this.#file = undefined;
    await Deno.remove(this.temporary).catch(() => {});
  }

  /** {@link AtomicFile.abort} for a signal handler, which cannot wait. */
  abortSync(): void {
    try {
      this.#file?.close();
    } catch {
      // already closed by an async write in flight
    }
    this.#file = undefined;
    try {
      Deno.removeSync(this.temporary);
    } catch {
      // removed already
    }
  }

  #open(): Deno.FsFile {
    if (this.#file === undefined) throw new Error(`${this.path}: the output is closed`);
    return this.#file;
  }
}

function writeProblem(error: unknown): string {
  if (error instanceof Deno.errors.NotCapable) {
    return "no write permission (run deno with --allow-write)";
  }
  if (error instanceof Deno.errors.PermissionDenied) return "permission denied";
  if (error instanceof Deno.errors.NotFound) return "no such directory";
  return error instanceof Error ? error.message : String(error);
}
