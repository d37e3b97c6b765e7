/**
 * The lanes of `deno task test` (`lanes.ts`): their JUnit reports merge into one that counts
 * every suite, and every suite that drives Chromium runs in the browser lane.
 *
 * @module
 */

import assert from "node:assert/strict";
import { BROWSER_SUITES, lanes, LOAD_SUITES, mergeJunit } from "./lanes.ts";

const ROOT = new URL("../", import.meta.url);

function report(tests: number, failures: number, suites: string[]): string {
  return '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<testsuites name="deno test" tests="${tests}" failures="${failures}" errors="0" time="2.5">\n` +
    suites.map((name) => `    <testsuite name="${name}" tests="1">\n    </testsuite>\n`).join("") +
    "</testsuites>\n";
}

Deno.test("mergeJunit() keeps every lane's suites and sums their counts", () => {
  const merged = mergeJunit([
    report(3, 1, ["./tests/a_test.ts", "./tests/b_test.ts"]),
    '<testsuites name="deno test" tests="0" failures="0" errors="0" time="0.1"/>\n',
    report(2, 0, ["./tests/c_test.ts"]),
  ], 7.25);
  assert.match(
    merged,
    /^<\?xml [^\n]+\n<testsuites name="deno test" tests="5" failures="1" errors="0" time="7.250">\n/,
  );
  const suites = [...merged.matchAll(/<testsuite name="([^"]+)"/g)].map((m) => m[1]);
  assert.deepEqual(suites, ["./tests/a_test.ts", "./tests/b_test.ts", "./tests/c_test.ts"]);
  assert.ok(merged.endsWith("</testsuites>\n"));
  assert.equal(merged.match(/<testsuites\b/g)?.length, 1);
  assert.throws(() => mergeJunit(["<nothing/>"], 1), /report 0 has no <testsuites> element/);
});

Deno.test("each named suite exists and is in one lane; every Chromium suite is in the browser lane", async () => {
  const named = [...BROWSER_SUITES, ...LOAD_SUITES];
  assert.equal(new Set(named).size, named.length, "a suite is named twice");
  for (const path of named) assert.ok((await Deno.stat(new URL(path, ROOT))).isFile, path);
  const chromium: string[] = [];
  for await (const path of testFiles("tests/")) {
    const text = await Deno.readTextFile(new URL(path, ROOT));
    if (/from "(\.\.\/web|\.)\/browser\.ts"/.test(text)) chromium.push(path);
  }
  assert.ok(chromium.length >= 5, `found ${chromium.length} browser suites`);
  assert.deepEqual(chromium.filter((path) => !BROWSER_SUITES.includes(path)), []);
  // The main lane runs everything else: `tests/` without the suites of the other lanes.
  const [main] = lanes([]);
  assert.ok(main!.steps[0]!.args.includes(`--ignore=${named.join(",")}`));
});

/** The `*_test.ts` files under `dir` (a path from the repository root). */
async function* testFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(new URL(dir, ROOT))) {
    const path = `${dir}${entry.name}`;
    if (entry.isDirectory) yield* testFiles(`${path}/`);
    else if (entry.name.endsWith("_test.ts")) yield path;
  }
}
