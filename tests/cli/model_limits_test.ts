/**
 * Model limits through the real CLI (issue 27): PETRA's `paint_shop/model.pt` patched past a
 * limit (`num_steps` 10,000,000 as the issue found it, `num_steps` 1,000 which only the graph
 * budget refuses, a sharpness float32 cannot hold), the same in a `model.json`, and an `.onnx`
 * bundle over the node limit are each refused by `serve`, `inspect`, `batch` and `compile` with
 * exit 2 and one stderr line naming the file and the limit. Each process runs with a 256 MB
 * V8 heap (bounded memory: past it the process would die, not exit 2) and a kill after 60 s
 * (a bound that proves termination, not a measure of speed).
 *
 * @module
 */

import assert from "node:assert/strict";
import { compileBundle } from "../../core/bundle/mod.ts";
import { parseModelDescription } from "../../core/net/parse.ts";
import { writeBundle } from "../../adapter/deno/bundle_files.ts";
import { CONFORMANCE, readConformanceDescription } from "../conformance/fixtures.ts";
import {
  fixtureEntries,
  fixtureSidecar,
  Pickle,
  replaceValueOf,
  torchZip,
} from "../core/pt/pickles.ts";
import { runDeno } from "../run_deno.ts";
import { tempDir } from "./serve/server_process.ts";

const DENO = ["run", "-A", "--v8-flags=--max-old-space-size=256", "cli.ts"];
const TRACES = new URL("paint_shop/traces.json", CONFORMANCE).pathname;

const COMMANDS: Readonly<Record<string, (path: string) => string[]>> = {
  serve: (path) => [...DENO, "serve", path, "--port", "0"],
  inspect: (path) => [...DENO, "inspect", path],
  batch: (path) => [...DENO, "batch", path, "--traces", TRACES],
  compile: (path) => [...DENO, "compile", path, "-o", `${path}.compiled.onnx`],
};

async function assertRefused(args: string[], file: string, reason: RegExp): Promise<void> {
  const result = await runDeno(args, { timeoutMs: 60_000 });
  const what = `${args.join(" ")}: exit ${result.code}, ${JSON.stringify(result.stderr)}`;
  assert.equal(result.code, 2, what);
  assert.equal(result.stdout, "", what);
  assert.match(result.stderr, /^error: [^\n]+\n$/, what);
  assert.ok(result.stderr.includes(file), `${what} does not name ${file}`);
  assert.match(result.stderr, reason, what);
}

/** paint_shop's `.pt` with the value under `key` in its pickle replaced. */
async function patchedPt(dir: string, name: string, key: string, value: Uint8Array) {
  const entries = await fixtureEntries("paint_shop");
  const pt = torchZip("paint_shop", {
    ...entries,
    "data.pkl": replaceValueOf(entries["data.pkl"]!, key, value),
  });
  const path = `${dir}/${name}.pt`;
  await Deno.writeFile(path, pt);
  await Deno.writeTextFile(`${path}.meta.json`, await fixtureSidecar("paint_shop"));
  return path;
}

Deno.test("a PETRA .pt past a model limit is refused by every command with one line", async (t) => {
  await using dir = await tempDir();
  const cases = [
    {
      name: "steps_1e7",
      key: "num_steps",
      value: new Pickle().int(10_000_000).bytes(),
      reason: /module\.num_steps: expected an integer from 0 to 1000, got 10000000/,
    },
    {
      name: "steps_1000",
      key: "num_steps",
      value: new Pickle().int(1000).bytes(),
      reason: /over a model limit: the compiled graph needs more than 10000 ONNX nodes/,
    },
    {
      name: "sharpness_1e39",
      key: "sharpness",
      value: new Pickle().float(1e39).bytes(),
      reason: /module\.sharpness: expected a finite float32 number, got 1e\+39/,
    },
  ];
  for (const { name, key, value, reason } of cases) {
    const path = await patchedPt(dir.path, name, key, value);
    for (const [command, args] of Object.entries(COMMANDS)) {
      await t.step(`${command} ${name}.pt`, () => assertRefused(args(path), `${name}.pt`, reason));
    }
  }
});

Deno.test("compile refuses a model.json past a model limit with one line", async (t) => {
  await using dir = await tempDir();
  const base = await readConformanceDescription("paint_shop");
  const module = base.module as Record<string, unknown>;
  const parameters = base.parameters as { arc_weights: { weight: number }[] };
  const places = Array.from({ length: 10_001 }, (_, i) => `p_${i}`);
  const cases: [string, Record<string, unknown>, RegExp][] = [
    [
      "steps_1e7",
      { ...base, module: { ...module, num_steps: 10_000_000 } },
      /module\.num_steps: expected an integer from 0 to 1000, got 10000000/,
    ],
    [
      "steps_1000",
      { ...base, module: { ...module, num_steps: 1000 } },
      /over a model limit: the compiled graph needs more than 10000 ONNX nodes/,
    ],
    [
      "weight_3.5e38",
      {
        ...base,
        parameters: {
          ...parameters,
          arc_weights: parameters.arc_weights.map((w, i) => i === 0 ? { ...w, weight: 3.5e38 } : w),
        },
      },
      /parameters\.arc_weights\[0\]\.weight: expected a finite float32 weight for arc .*, got 3\.5e\+38/,
    ],
    [
      "places_10001",
      { ...base, net: { ...base.net as object, places } },
      /\(1 issue\): net\.places: 10001 places, over the limit of 10000$/m,
    ],
  ];
  for (const [name, description, reason] of cases) {
    const path = `${dir.path}/${name}.model.json`;
    await Deno.writeTextFile(path, JSON.stringify(description));
    await t.step(name, () => assertRefused(COMMANDS.compile!(path), `${name}.model.json`, reason));
  }
});

Deno.test("an .onnx bundle over the node limit is refused by serve, inspect and batch", async (t) => {
  await using dir = await tempDir();
  const description = await readConformanceDescription("paint_shop");
  (description.module as Record<string, unknown>).num_steps = 400;
  const model = parseModelDescription(description);
  const bundle = await compileBundle(model, { maxNodes: Infinity });
  const { onnxPath } = await writeBundle(`${dir.path}/big.onnx`, bundle);
  const reason = /big\.onnx has \d+ ONNX nodes, over the limit of 10000/;
  for (const command of ["serve", "inspect", "batch"]) {
    await t.step(command, () => assertRefused(COMMANDS[command]!(onnxPath), "big.onnx", reason));
  }
});
