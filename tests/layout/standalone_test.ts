/**
 * The repository stands alone: no tracked file refers to the shared design folder beside it.
 *
 * @module
 */

import assert from "node:assert/strict";
import { findSharedReferences, sharedReferences } from "./standalone.ts";

const ROOT = new URL("../../", import.meta.url);
const encode = (text: string) => new TextEncoder().encode(text);
// Built from parts so that this file itself stays clean.
const UP = [".", ".", "/", "shared"].join("");

Deno.test("sharedReferences() finds relative and absolute references, with their line", () => {
  const text = `line one\nsee [format](${UP}/MODEL_FORMAT.md)\nand /work/${"shared"}/SPEC.md\n`;
  assert.deepEqual(sharedReferences("README.md", encode(text)).map((r) => r.line), [2, 3]);
  assert.deepEqual(sharedReferences("a.md", encode(`shared/ and ${UP}ness`)), []);
});

Deno.test("no tracked file refers to the shared folder outside the repository", async () => {
  assert.deepEqual(await findSharedReferences(ROOT), []);
});

Deno.test("findSharedReferences() reads the files git tracks and names the offending one", async () => {
  // A throwaway git repository with one offending file, checked by the same script.
  const dir = await Deno.makeTempDir();
  try {
    const git = (...args: string[]) =>
      new Deno.Command("git", { args, cwd: dir, stdout: "null", stderr: "null" }).output();
    await git("init", "-q");
    await Deno.writeTextFile(`${dir}/notes.md`, `read ${UP}/SEMANTICS.md\n`);
    await git("add", "notes.md");
    const found = await findSharedReferences(new URL(`file://${dir}/`));
    assert.deepEqual(found.map((r) => `${r.path}:${r.line}`), ["notes.md:1"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
