/**
 * `tests/` mirrors the source: the tests of `core/ops/` are in `tests/core/ops/`, those of
 * `cli/serve.ts` in `tests/cli/serve/`, and a test folder that names no source folder or module
 * is one of the few suites about the whole package ({@link WHOLE_PACKAGE}).
 *
 * @module
 */

import assert from "node:assert/strict";
import { trackedFiles } from "./standalone.ts";

const ROOT = new URL("../../", import.meta.url);

/** Test folders about the whole package rather than one folder of it, and why. */
const WHOLE_PACKAGE: Readonly<Record<string, string>> = {
  "tests": "the suite's own lanes and the import maps of deno.json",
  "tests/layout": "the layout's rules, this one included",
  "tests/conformance": "PETRA's recorded exchanges, replayed on every face",
  "tests/consumers": "the package as a Deno, Node or browser project installs it",
  "tests/oracle": "the math, against an evaluation written apart from core/",
};

/** Folders whose modules are tested from the parent's tests: a stage's inner parts. */
const TOP_FOLDERS = new Set(["core", "adapter"]);

/** Product folders: what the package is made of (tests, fixtures and generated files aside). */
const PRODUCT = /^(core|server|adapter|cli|web|tools|bench)\//;
const GENERATED = /^web\/bundle\//;

const folderOf = (path: string) => path.slice(0, path.lastIndexOf("/")) || ".";

function* ancestors(path: string): Generator<string> {
  for (let at = path.lastIndexOf("/"); at > 0; at = path.lastIndexOf("/", at - 1)) {
    yield path.slice(0, at);
  }
}

async function layout() {
  const files = await trackedFiles(ROOT);
  const folders = new Set(files.flatMap((f) => [...ancestors(f)]));
  const modules = new Set(files.filter((f) => f.endsWith(".ts")));
  const testFolders = new Set(
    files.filter((f) => f.startsWith("tests/") && f.endsWith("_test.ts")).map(folderOf),
  );
  const sourceFolders = new Set(
    files.filter((f) => PRODUCT.test(f) && !GENERATED.test(f) && f.endsWith(".ts")).map(folderOf),
  );
  return { folders, modules, testFolders, sourceFolders };
}

/** The test folders that mirror neither a source folder nor a module, nor test the whole. */
function strayTestFolders(
  testFolders: Iterable<string>,
  folders: ReadonlySet<string>,
  modules: ReadonlySet<string>,
): string[] {
  return [...testFolders].filter((folder) => {
    if (folder in WHOLE_PACKAGE) return false;
    const source = folder.slice("tests/".length);
    return !folders.has(source) && !modules.has(`${source}.ts`);
  });
}

/** The source folders with no test folder of their own or, for a stage's part, of its stage. */
function untestedFolders(sourceFolders: Iterable<string>, testFolders: ReadonlySet<string>) {
  return [...sourceFolders].filter((folder) => {
    if (testFolders.has(`tests/${folder}`)) return false;
    const parent = folderOf(folder);
    return TOP_FOLDERS.has(parent) || parent === "." || !testFolders.has(`tests/${parent}`);
  });
}

Deno.test("every test folder mirrors a source folder or module, or tests the whole package", async () => {
  const { folders, modules, testFolders } = await layout();
  assert.deepEqual(strayTestFolders(testFolders, folders, modules), []);
});

Deno.test("every source folder has its test folder (a stage's parts: the stage's)", async () => {
  const { sourceFolders, testFolders } = await layout();
  assert.deepEqual(untestedFolders(sourceFolders, testFolders), []);
});

Deno.test("the mirror rules refuse a stray or a missing test folder", () => {
  const folders = new Set(["core", "core/ops", "cli", "core/event_log", "core/event_log/csv"]);
  const modules = new Set(["cli/serve.ts"]);
  assert.deepEqual(
    strayTestFolders(
      ["tests/core/ops", "tests/cli/serve", "tests/net", "tests/layout"],
      folders,
      modules,
    ),
    ["tests/net"],
  );
  const tested = new Set(["tests/core/ops", "tests/core/event_log"]);
  assert.deepEqual(
    untestedFolders(["core/ops", "core/event_log/csv", "core/bytes", "cli"], tested),
    ["core/bytes", "cli"],
  );
});
