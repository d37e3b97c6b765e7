/**
 * Tests of `cli.ts` run as a subprocess (`deno run -A cli.ts ...`): exit codes, help text, and
 * that every failure is one line on stderr with no stack trace.
 *
 * @module
 */

import assert from "node:assert/strict";
import { runDeno, type RunResult } from "../run_deno.ts";

type Result = RunResult;

function cli(...args: string[]): Promise<Result> {
  return runDeno(["run", "-A", "cli.ts", ...args]);
}

/** Exit code 2, nothing on stdout, one line on stderr containing every `texts`. */
function assertUsageFailure(result: Result, ...texts: string[]): void {
  assert.equal(result.code, 2, `exit code; stderr: ${result.stderr}`);
  assert.equal(result.stdout, "");
  assertOneLine(result.stderr);
  for (const text of texts) {
    assert.ok(result.stderr.includes(text), `${JSON.stringify(result.stderr)} lacks ${text}`);
  }
}

function assertOneLine(stderr: string): void {
  assert.match(stderr, /^error: [^\n]+\n$/, `one error line, got ${JSON.stringify(stderr)}`);
  assert.ok(!/\n\s+at /.test(stderr), "no stack trace");
}

async function withTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "petri_cli_" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const CREDIT_MODEL = "examples/credit_approval_coloured/credit_approval_coloured.model.json";

Deno.test("cli.ts --help lists the commands and exits 0", async () => {
  for (const flag of ["--help", "-h"]) {
    const result = await cli(flag);
    assert.equal(result.code, 0);
    assert.equal(result.stderr, "");
    assert.match(result.stdout, /Usage: deno run -A cli\.ts COMMAND/);
    assert.match(result.stdout, /\n {2}compile {2}/);
    assert.match(result.stdout, /\n {2}inspect {2}/);
  }
});

Deno.test("cli.ts COMMAND --help prints the command's options and exits 0", async () => {
  const compile = await cli("compile", "--help");
  assert.equal(compile.code, 0);
  assert.equal(compile.stderr, "");
  assert.match(compile.stdout, /^Usage: cli\.ts compile MODEL\.json/);
  for (const option of ["-o, --output", "--saved-at", "-h, --help"]) {
    assert.ok(compile.stdout.includes(option), option);
  }
  const inspect = await cli("inspect", "x.onnx", "-h");
  assert.equal(inspect.code, 0);
  assert.match(inspect.stdout, /^Usage: cli\.ts inspect BUNDLE/);
});

Deno.test("cli.ts reports bad usage on one stderr line and exits 2", async (t) => {
  const cases: [string, string[], string[]][] = [
    ["no command", [], ["no command given", "--help"]],
    ["unknown command", ["frobnicate"], ["unknown command 'frobnicate'", "cli.ts --help"]],
    ["unknown top-level option", ["--fast"], ["unknown option --fast"]],
    ["compile without a model", ["compile"], ["compile needs a MODEL.json argument"]],
    ["compile with two models", ["compile", "a.json", "b.json"], ["one MODEL.json argument"]],
    [
      "compile with an unknown option",
      ["compile", CREDIT_MODEL, "--bogus"],
      ["unknown option --bogus", "cli.ts compile --help"],
    ],
    ["compile -o without a value", ["compile", CREDIT_MODEL, "-o"], ["option -o needs a value"]],
    [
      "compile to a file that is not .onnx",
      ["compile", CREDIT_MODEL, "-o", "out.txt"],
      ["must end with .onnx", "'out.txt'"],
    ],
    [
      "compile with a bad --saved-at",
      ["compile", CREDIT_MODEL, "-o", "x.onnx", "--saved-at=yesterday"],
      ["--saved-at expects a UTC time", "'yesterday'"],
    ],
    ["inspect without a bundle", ["inspect"], ["inspect needs a BUNDLE argument"]],
  ];
  for (const [name, args, texts] of cases) {
    await t.step(name, async () => assertUsageFailure(await cli(...args), ...texts));
  }
});

Deno.test("cli.ts compile names an unreadable or invalid model file and exits 2", async () => {
  await withTempDir(async (dir) => {
    assertUsageFailure(
      await cli("compile", `${dir}/missing.json`, "-o", `${dir}/x.onnx`),
      `cannot read ${dir}/missing.json: no such file`,
    );
    await Deno.writeTextFile(`${dir}/bad.json`, "{ not json");
    assertUsageFailure(
      await cli("compile", `${dir}/bad.json`),
      `${dir}/bad.json is not valid JSON`,
    );
    await Deno.writeTextFile(
      `${dir}/invalid.json`,
      JSON.stringify({ format: "petri-net-model/1", net: { places: ["p"], transitions: [] } }),
    );
    const invalid = await cli("compile", `${dir}/invalid.json`);
    assertUsageFailure(
      invalid,
      `${dir}/invalid.json is not a valid model description (`,
      "net.arcs: expected an array",
      "; ",
    );
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name).sort(), [
      "bad.json",
      "invalid.json",
    ]);
  });
});

Deno.test("cli.ts compile writes the bundle pair and inspect summarises it", async () => {
  await withTempDir(async (dir) => {
    const out = `${dir}/nested/credit.onnx`;
    const compiled = await cli(
      "compile",
      CREDIT_MODEL,
      "-o",
      out,
      "--saved-at",
      "2026-11-21T13:06:09Z",
    );
    assert.equal(compiled.code, 0, compiled.stderr);
    assert.equal(compiled.stdout, "");
    assert.match(
      compiled.stderr,
      /^compiled \S+ -> \S+credit\.onnx \+ \S+credit\.onnx\.meta\.json \(\d+ forward nodes, \d+ gradient nodes\)\n$/,
    );
    const sidecar = JSON.parse(await Deno.readTextFile(`${out}.meta.json`));
    assert.equal(sidecar.saved_at, "2026-11-21T13:06:09Z");

    const inspected = await cli("inspect", `${dir}/nested`);
    assert.equal(inspected.code, 0, inspected.stderr);
    assert.equal(inspected.stderr, "");
    const text = inspected.stdout;
    for (
      const line of [
        `bundle          ${out}`,
        "scenario        credit_approval_coloured",
        "places          3",
        "p_submitted  (source)",
        "transitions     2",
        't_approve  "approve loan"',
        "source places   p_submitted",
        "mode            acyclic",
        "firing          sigmoid",
        "routing         independent",
        "sharpness       1",
        "guards          2",
        "inhibitor arcs  0",
        "input marking   p_submitted = constant 1",
        'input values    p_submitted = attribute "amount"',
        `onnx_sha256     ${sidecar.onnx_sha256}`,
      ]
    ) {
      assert.ok(text.includes(line), `inspect output lacks ${JSON.stringify(line)}:\n${text}`);
    }
  });
});

Deno.test("cli.ts inspect names a missing or broken bundle file and exits 2", async () => {
  await withTempDir(async (dir) => {
    const out = `${dir}/model.onnx`;
    assert.equal((await cli("compile", CREDIT_MODEL, "-o", out)).code, 0);
    await Deno.writeTextFile(`${out}.meta.json`, "{");
    assertUsageFailure(
      await cli("inspect", out),
      `error: Cannot load bundle: ${out}.meta.json is not valid JSON`,
    );
    await Deno.remove(`${out}.meta.json`);
    assertUsageFailure(
      await cli("inspect", out),
      `error: Cannot load bundle: ${out}.meta.json is missing`,
    );
    assertUsageFailure(
      await cli("inspect", `${dir}/other.onnx`),
      `Cannot load bundle: ${dir}/other.onnx does not exist`,
    );
    await Deno.remove(out);
    assertUsageFailure(await cli("inspect", dir), `directory ${dir} holds no bundle`);
  });
});
