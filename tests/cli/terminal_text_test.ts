/**
 * A model's names and descriptions never drive the terminal (issue 27): a bundle whose
 * `scenario_name`, `scenario_description` and a transition label hold escape sequences (a
 * window title, a colour, a CSI in its C1 form), a carriage return and line feed that would
 * forge a line, and a bidirectional override, is inspected and served by real `cli.ts`
 * processes, and what they print holds none of those characters: each appears escaped.
 *
 * @module
 */

import assert from "node:assert/strict";
import { runDeno } from "../run_deno.ts";
import { compileTo } from "./batch/helpers.ts";
import { startServerProcess, tempDir } from "./serve/server_process.ts";

const HOSTILE_NAME = "loans\x1b]0;PWNED\x07\x1b[31m";
const HOSTILE_DESCRIPTION = "fine\r\nFAKE LINE: all good\u202etxt.exe";
const HOSTILE_LABEL = "approve\u009b2J";
/** Control characters a terminal acts on (line feeds end lines), and the bidirectional controls. */
const UNSAFE = /(?!\n)[\p{Cc}\u202a-\u202e\u2066-\u2069]/u;

async function hostileBundle(dir: string): Promise<string> {
  const description = JSON.parse(
    await Deno.readTextFile("examples/rest_serving/rest_serving.model.json"),
  );
  description.scenario_name = HOSTILE_NAME;
  description.scenario_description = HOSTILE_DESCRIPTION;
  description.net.labels = { ...description.net.labels, t_approve: HOSTILE_LABEL };
  return await compileTo(dir, "hostile", description);
}

Deno.test("inspect prints a model's names and descriptions escaped", async () => {
  await using dir = await tempDir();
  const bundle = await hostileBundle(dir.path);
  const run = await runDeno(["run", "-A", "cli.ts", "inspect", bundle]);
  assert.equal(run.code, 0, run.stderr);
  const lines = run.stdout.split("\n");
  assert.doesNotMatch(run.stdout, UNSAFE);
  assert.ok(
    lines.some((l) => /^scenario +loans\\x1b\]0;PWNED\\x07\\x1b\[31m$/.test(l)),
    run.stdout,
  );
  assert.ok(
    lines.some((l) => /^description +fine\\r\\nFAKE LINE: all good\\u202etxt\.exe$/.test(l)),
    run.stdout,
  );
  assert.ok(run.stdout.includes("approve\\x9b2J"), run.stdout);
  assert.ok(!lines.some((l) => l.startsWith("FAKE LINE")));
});

Deno.test("serve's start-up line prints the scenario name escaped", async () => {
  await using dir = await tempDir();
  const bundle = await hostileBundle(dir.path);
  await using server = await startServerProcess([
    "run",
    "-A",
    "cli.ts",
    "serve",
    bundle,
    "--port",
    "0",
    "--access-log",
    "off",
  ]);
  assert.doesNotMatch(server.firstLine, UNSAFE);
  assert.match(server.firstLine, /^serving loans\\x1b\]0;PWNED\\x07\\x1b\[31m on http:/);
  server.kill("SIGTERM");
  const exit = await server.finished();
  assert.doesNotMatch(exit.stderr, UNSAFE);
});
