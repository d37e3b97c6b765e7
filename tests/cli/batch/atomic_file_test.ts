/**
 * `AtomicFile`: nothing at the output path until `commit`, the temporary file beside it, and
 * `abort` / `abortSync` leaving the path as it was.
 *
 * @module
 */

import assert from "node:assert/strict";
import { AtomicFile } from "../../../cli/batch/atomic_file.ts";
import { InputError } from "../../../cli/command.ts";
import { withTempDir } from "./helpers.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test("AtomicFile writes beside the output and renames into place on commit", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/deep/er/scores.json`;
    const file = await AtomicFile.create(path);
    assert.match(file.temporary, /\/deep\/er\/\.scores\.json\.\d+-[0-9a-z]+\.tmp$/);
    await file.write(bytes("[\n"));
    await file.write(bytes("]\n"));
    await assert.rejects(Deno.stat(path), Deno.errors.NotFound);
    await file.commit();
    assert.equal(await Deno.readTextFile(path), "[\n]\n");
    assert.deepEqual([...Deno.readDirSync(`${dir}/deep/er`)].map((e) => e.name), ["scores.json"]);
  });
});

Deno.test("AtomicFile.abort() keeps an existing output and removes the temporary file", async () => {
  await withTempDir(async (dir) => {
    const path = `${dir}/scores.json`;
    await Deno.writeTextFile(path, "old");
    for (const stop of ["abort", "abortSync"] as const) {
      const file = await AtomicFile.create(path);
      await file.write(bytes("new"));
      await file[stop]();
      assert.equal(await Deno.readTextFile(path), "old");
      assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name), ["scores.json"]);
    }
  });
});

Deno.test("AtomicFile.create() names the path it cannot write", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/file`, "");
    await assert.rejects(
      AtomicFile.create(`${dir}/file/scores.json`),
      (error: unknown) =>
        error instanceof InputError &&
        error.message.startsWith(`cannot write ${dir}/file/scores.json: `),
    );
  });
});
