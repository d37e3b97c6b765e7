/**
 * The hostile table through the real CLI: each file of tests/fixtures/conformance/hostile_pt
 * is refused by `serve`, `inspect` and `batch` with exit 2 and one stderr line naming the file
 * and the reason; a selection of the built cases (./hostile_cases.ts) is refused by `serve` the
 * same way, and no marker file appears.
 *
 * @module
 */

import assert from "node:assert/strict";
import { runDeno } from "../../run_deno.ts";
import { hostileCases, MARKER, RECORDED_HOSTILE } from "./hostile_cases.ts";
import { CONFORMANCE } from "../../conformance/fixtures.ts";
import { fixtureSidecar } from "./pickles.ts";

const HOSTILE = new URL("hostile_pt/", CONFORMANCE);
const TRACES = new URL("rest_serving/traces.json", CONFORMANCE).pathname;

const COMMANDS: Readonly<Record<string, (path: string) => string[]>> = {
  serve: (path) => ["run", "-A", "cli.ts", "serve", path, "--port", "0"],
  inspect: (path) => ["run", "-A", "cli.ts", "inspect", path],
  batch: (path) => ["run", "--allow-read", "cli.ts", "batch", path, "--traces", TRACES],
};

function assertRefused(
  result: { code: number; stdout: string; stderr: string },
  file: string,
  reason: RegExp,
): void {
  assert.equal(result.code, 2, result.stderr);
  assert.equal(result.stdout, "");
  assert.match(result.stderr, /^error: Cannot load bundle: [^\n]+\n$/, result.stderr);
  assert.ok(result.stderr.includes(file), `${result.stderr} does not name ${file}`);
  assert.match(result.stderr, reason);
}

Deno.test("serve, inspect and batch refuse every file of hostile_pt/ with one line", async (t) => {
  await Deno.remove(MARKER).catch(() => {});
  for (const { file, cli: reason } of RECORDED_HOSTILE) {
    const path = new URL(file, HOSTILE).pathname;
    for (const [command, args] of Object.entries(COMMANDS)) {
      await t.step(`${command} ${file}`, async () => {
        assertRefused(await runDeno(args(path)), file, reason);
      });
    }
  }
  await assert.rejects(Deno.stat(MARKER), Deno.errors.NotFound);
});

const SELECTED = [
  "global os.system",
  "global builtins.eval",
  "global subprocess.Popen",
  "a __proto__ key in a state dict",
  "a zip bomb (a deflated 32 MiB entry)",
  "lists nested 100000 deep",
  "a memo of over a million entries",
];

Deno.test("serve refuses built hostile files with one line, and nothing runs", async (t) => {
  const dir = await Deno.makeTempDir();
  try {
    const marker = `${dir}/marker`;
    const sidecar = await fixtureSidecar("rest_serving");
    const cases = (await hostileCases(marker)).filter((c) => SELECTED.includes(c.name));
    assert.equal(cases.length, SELECTED.length);
    for (const [i, { name, pt, reason }] of cases.entries()) {
      await t.step(name, async () => {
        const path = `${dir}/case_${i}.pt`;
        await Deno.writeFile(path, pt);
        await Deno.writeTextFile(`${path}.meta.json`, sidecar);
        assertRefused(await runDeno(COMMANDS.serve!(path)), `case_${i}.pt`, reason);
      });
    }
    await assert.rejects(Deno.stat(marker), Deno.errors.NotFound);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
