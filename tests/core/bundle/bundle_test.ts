/**
 * Tests of `core/bundle/mod.ts`: the sidecar's shape, compile-then-load round trips (ids such as
 * `__proto__` included) and one table case per way a bundle can be broken, each asserting
 * that the error names the file at fault.
 *
 * @module
 */

import assert from "node:assert/strict";
import {
  BUNDLE_FORMAT,
  BundleError,
  compileBundle,
  createSidecar,
  formatSidecar,
  loadBundle,
  METADATA_KEYS,
} from "../../../core/bundle/mod.ts";
import { compileModel } from "../../../core/compile/mod.ts";
import { parseModelDescription } from "../../../core/net/parse.ts";
import type { PetriModel } from "../../../core/net/types.ts";
import { DataType, decodeModel, encodeModel } from "../../../core/onnx/proto.ts";
import { assertRejectsWith, exampleModel, ORT } from "../fixtures.ts";

const SAVED_AT = new Date("2026-11-21T13:06:09Z");
const ONNX = "model.onnx";
const SIDECAR = "model.onnx.meta.json";

/** A two-place net whose ids clash with `Object.prototype` (JSON text keeps `__proto__` own). */
const PROTO_IDS = `{
  "format": "petri-net-model/1",
  "input_marking_spec": {"__proto__": {"constant": 1}},
  "input_values_spec": {"__proto__": {"attribute": "constructor"}},
  "net": {
    "places": ["__proto__", "constructor"],
    "transitions": ["toString"],
    "arcs": [{"from": "__proto__", "to": "toString"}, {"from": "toString", "to": "constructor"}],
    "labels": {"toString": "hasOwnProperty"}
  },
  "parameters": {
    "arc_weights": [
      {"from": "__proto__", "to": "toString", "weight": 2},
      {"from": "toString", "to": "constructor", "weight": 1}
    ],
    "transition_thresholds": {"toString": 0.5}
  }
}`;

function protoIdsModel(): PetriModel {
  return parseModelDescription(JSON.parse(PROTO_IDS));
}

Deno.test("compileBundle() writes a sorted, indented sidecar that records the bytes' sha256", async () => {
  const model = await exampleModel("credit_approval_coloured");
  const bundle = await compileBundle(model, { savedAt: SAVED_AT });
  assert.ok(bundle.sidecar.endsWith("}\n"));
  const sidecar = JSON.parse(bundle.sidecar);
  assert.deepEqual(Object.keys(sidecar), [...Object.keys(sidecar)].sort());
  assert.equal(bundle.sidecar, JSON.stringify(sidecar, null, 2) + "\n");
  assert.deepEqual(sidecar, {
    format: BUNDLE_FORMAT,
    input_marking_spec: { p_submitted: { constant: 1 } },
    input_values_spec: { p_submitted: { attribute: "amount" } },
    onnx_sha256: await sha256(bundle.onnx),
    petra_version: "0.1.0",
    producer: "@petri/serve@0.1.0",
    saved_at: "2026-11-21T13:06:09Z",
    scenario_description:
      "Loan applications: one is approved when its amount is 1,000 or more and declined when it is less. The amount is the value carried by the application's token, read from each trace's amount attribute.",
    scenario_name: "credit_approval_coloured",
  });
  const metadata = decodeModel(bundle.onnx).metadataProps?.map((p) => p.key);
  assert.deepEqual(metadata, [METADATA_KEYS.net, METADATA_KEYS.module, METADATA_KEYS.parameters]);
  assert.ok(bundle.forwardNodes > 0 && bundle.gradientNodes > 0);
});

Deno.test("createSidecar() writes null scenario fields and no petra_version when the model has none", async () => {
  const model = protoIdsModel();
  const sidecar = await createSidecar(model, new Uint8Array([1, 2, 3]), {
    savedAt: new Date("2026-01-02T03:04:05.678Z"),
    producer: { name: "test", version: "9" },
  });
  assert.equal(sidecar.scenario_name, null);
  assert.equal(sidecar.scenario_description, null);
  assert.equal("petra_version" in sidecar, false);
  assert.equal(sidecar.producer, "test@9");
  assert.equal(sidecar.saved_at, "2026-01-02T03:04:05Z");
  assert.equal(
    sidecar.onnx_sha256,
    "039058c6f2c0cb492c533b0a4d14ef77cc0f78abccced5287d84a1a2011cfb81",
  );
  assert.ok(Object.hasOwn(JSON.parse(formatSidecar(sidecar)).input_marking_spec, "__proto__"));
});

Deno.test("loadBundle() opens a compiled bundle with the net, settings, parameters and specs", async () => {
  const model = await exampleModel("credit_approval_coloured");
  const bundle = await compileBundle(model, { savedAt: SAVED_AT });
  await using loaded = await loadBundle(ORT, {
    onnx: bundle.onnx,
    sidecar: bundle.sidecar,
    onnxName: ONNX,
    sidecarName: SIDECAR,
  });
  assert.deepEqual(loaded.net, model.net);
  assert.deepEqual(loaded.module, model.module);
  assert.deepEqual(loaded.parameters, model.parameters);
  assert.deepEqual(loaded.inputMarkingSpec, model.inputMarkingSpec);
  assert.deepEqual(loaded.inputValuesSpec, model.inputValuesSpec);
  assert.deepEqual(loaded.structure.sourcePlaces, ["p_submitted"]);
  assert.equal(loaded.label("t_approve"), "approve loan");
  assert.equal(loaded.placeIndex.get("p_submitted"), 2);
  assert.equal(loaded.transitionIndex.get("t_decline"), 1);
  assert.equal(loaded.sidecar.scenario_name, "credit_approval_coloured");
  const [row] = await loaded.run([{
    marking: new Map([["p_submitted", 1]]),
    values: new Map([["p_submitted", 5000]]),
    target: new Map([["t_approve", 1]]),
  }], { withGradient: true });
  assert.equal(row!.transitions.length, 2);
  assert.ok(row!.transitions.every(Number.isFinite));
  assert.equal(row!.gradValues!.length, 3);
});

Deno.test("loadBundle() opens a bundle compiled before the place_values output", async () => {
  // Committed from the compiler as it was before `place_values` existed.
  const dir = new URL("../../fixtures/pre_place_values/", import.meta.url);
  const onnx = await Deno.readFile(new URL("credit_approval_coloured.onnx", dir));
  const outputs = decodeModel(onnx).graph!.output!.map((o) => o.name);
  assert.deepEqual(outputs, ["transitions", "places", "grad_marking", "grad_values"]);
  await using old = await loadBundle(ORT, {
    onnx,
    sidecar: await Deno.readTextFile(new URL("credit_approval_coloured.onnx.meta.json", dir)),
    onnxName: ONNX,
    sidecarName: SIDECAR,
  });
  const fresh = await compileBundle(await exampleModel("credit_approval_coloured"), {
    savedAt: SAVED_AT,
  });
  await using current = await loadBundle(ORT, {
    ...fresh,
    onnxName: ONNX,
    sidecarName: SIDECAR,
  });
  const rows = [{
    marking: new Map([["p_submitted", 1]]),
    values: new Map([["p_submitted", 1500]]),
    target: new Map([["t_approve", 1]]),
  }];
  const [before] = await old.run(rows, { withGradient: true });
  const [after] = await current.run(rows, { withGradient: true });
  assert.equal(before!.placeValues, undefined);
  assert.equal(after!.placeValues!.length, 3);
  // The new output changes nothing else.
  assert.deepEqual([...before!.transitions], [...after!.transitions]);
  assert.deepEqual([...before!.places], [...after!.places]);
  assert.deepEqual([...before!.gradValues!], [...after!.gradValues!]);
});

Deno.test("loadBundle() keeps ids such as __proto__ through the embedded metadata", async () => {
  const model = protoIdsModel();
  const bundle = await compileBundle(model, { savedAt: SAVED_AT });
  await using loaded = await loadBundle(ORT, {
    onnx: bundle.onnx,
    sidecar: bundle.sidecar,
    onnxName: ONNX,
    sidecarName: SIDECAR,
  });
  assert.deepEqual(loaded.net, model.net);
  assert.deepEqual(loaded.parameters, model.parameters);
  assert.equal(loaded.label("toString"), "hasOwnProperty");
  assert.deepEqual(loaded.inputMarkingSpec, new Map([["__proto__", { constant: 1 }]]));
  assert.deepEqual(loaded.inputValuesSpec, new Map([["__proto__", { attribute: "constructor" }]]));
});

// ---------------------------------------------------------------------------------------------
// Broken bundles

interface Files {
  onnx: Uint8Array;
  sidecar: string;
}

interface BrokenCase {
  name: string;
  /** Breaks a valid bundle of the rest_serving example. */
  breaks(files: Files, model: PetriModel): Promise<Files> | Files;
  /** Substrings of the message (each names a file). */
  expect: string[];
}

/** A bundle whose sidecar matches `onnx`, so the check under test is the one that fails. */
async function withOnnx(model: PetriModel, onnx: Uint8Array): Promise<Files> {
  return { onnx, sidecar: formatSidecar(await createSidecar(model, onnx, { savedAt: SAVED_AT })) };
}

function editSidecar(files: Files, edit: (json: Record<string, unknown>) => void): Files {
  const json = JSON.parse(files.sidecar);
  edit(json);
  return { ...files, sidecar: JSON.stringify(json) };
}

function withMetadata(onnx: Uint8Array, key: string, value: string): Uint8Array {
  const proto = decodeModel(onnx);
  proto.metadataProps = (proto.metadataProps ?? []).map((
    p,
  ) => (p.key === key ? { key, value } : p));
  return encodeModel(proto);
}

const float = (name: string) => ({
  name,
  type: { tensorType: { elemType: DataType.FLOAT, shape: { dim: [{ dimValue: 3 }] } } },
});

const SIGMOID = encodeModel({
  irVersion: 8,
  opsetImport: [{ domain: "", version: 17 }],
  graph: {
    name: "sigmoid",
    node: [{ opType: "Sigmoid", input: ["x"], output: ["y"] }],
    input: [float("x")],
    output: [float("y")],
  },
});

const TINY = parseModelDescription({
  format: "petri-net-model/1",
  net: {
    places: ["p_in", "p_out"],
    transitions: ["t_go"],
    arcs: [{ from: "p_in", to: "t_go" }, { from: "t_go", to: "p_out" }],
  },
  parameters: {
    arc_weights: [{ from: "p_in", to: "t_go", weight: 1 }, {
      from: "t_go",
      to: "p_out",
      weight: 1,
    }],
    transition_thresholds: { t_go: 0 },
  },
});

const BROKEN: BrokenCase[] = [
  {
    name: "malformed sidecar JSON",
    breaks: (files) => ({ ...files, sidecar: '{"format": ' }),
    expect: [`Cannot load bundle: ${SIDECAR} is not valid JSON (`],
  },
  {
    name: "sidecar that is not an object",
    breaks: (files) => ({ ...files, sidecar: "[1, 2]" }),
    expect: [`Cannot load bundle: ${SIDECAR} does not hold a JSON object`],
  },
  {
    name: "sidecar without a format",
    breaks: (files) => editSidecar(files, (json) => delete json.format),
    expect: [`Cannot load bundle: ${SIDECAR} has no format field`],
  },
  {
    name: "unknown sidecar format",
    breaks: (files) => editSidecar(files, (json) => (json.format = "petri-serve-bundle/9")),
    expect: [
      `Cannot load bundle: ${SIDECAR} has format 'petri-serve-bundle/9', ` +
      "expected 'petri-serve-bundle/1'",
    ],
  },
  {
    name: "PETRA sidecar (no format)",
    breaks: (files) =>
      editSidecar(files, (json) => {
        delete json.format;
        delete json.onnx_sha256;
      }),
    expect: [`${SIDECAR} has no format field`],
  },
  {
    name: "sidecar without onnx_sha256",
    breaks: (files) => editSidecar(files, (json) => delete json.onnx_sha256),
    expect: [`Cannot load bundle: ${SIDECAR} has no valid onnx_sha256`],
  },
  {
    name: "sidecar with a non-string scenario_name",
    breaks: (files) => editSidecar(files, (json) => (json.scenario_name = 7)),
    expect: [`Cannot load bundle: ${SIDECAR} has scenario_name 7, expected a string`],
  },
  {
    name: "hash mismatch",
    breaks: (files) => ({ ...files, onnx: Uint8Array.from([...files.onnx, 0]) }),
    expect: [`Cannot load bundle: ${ONNX} does not match ${SIDECAR}: its sha256 is `],
  },
  {
    name: "not-ONNX bytes",
    breaks: (_, model) => withOnnx(model, new TextEncoder().encode("this is not a model\n")),
    expect: [`Cannot load bundle: ${ONNX} is not an ONNX model`],
  },
  {
    name: "empty ONNX file",
    breaks: (_, model) => withOnnx(model, new Uint8Array()),
    expect: [`Cannot load bundle: ${ONNX} is not an ONNX model`],
  },
  {
    name: "valid ONNX model that breaks the contract (one Sigmoid node)",
    breaks: (_, model) => withOnnx(model, SIGMOID),
    expect: [
      `Cannot load bundle: ${ONNX} breaks the petri-serve graph contract: ` +
      "input 'marking' is missing (and ",
    ],
  },
  {
    name: "graph with the contract but no metadata",
    breaks: (_, model) => withOnnx(model, compileModel(model).bytes),
    expect: [`Cannot load bundle: ${ONNX} has no petri_serve.net metadata`],
  },
  {
    name: "graph without gradient outputs",
    breaks: (files, model) => {
      const bytes = compileModel(model, { gradient: false }).bytes;
      const proto = decodeModel(bytes);
      proto.metadataProps = decodeModel(files.onnx).metadataProps ?? [];
      return withOnnx(model, encodeModel(proto));
    },
    expect: [`${ONNX} breaks the petri-serve graph contract: output 'grad_marking' is missing`],
  },
  {
    name: "graph whose widths differ from the embedded net",
    breaks: (files, model) => {
      const proto = decodeModel(compileModel(TINY).bytes);
      proto.metadataProps = decodeModel(files.onnx).metadataProps ?? [];
      return withOnnx(model, encodeModel(proto));
    },
    expect: [
      `${ONNX} breaks the petri-serve graph contract: 'marking' has width 2, ` +
      "but the embedded net has 3 places",
    ],
  },
  {
    name: "metadata that is not JSON",
    breaks: (files, model) =>
      withOnnx(model, withMetadata(files.onnx, METADATA_KEYS.module, "{sharp")),
    expect: [`Cannot load bundle: ${ONNX} has invalid petri_serve.module metadata (`],
  },
  {
    name: "metadata with an invalid module",
    breaks: (files, model) =>
      withOnnx(model, withMetadata(files.onnx, METADATA_KEYS.module, '{"firing": "relu"}')),
    expect: [`Cannot load bundle: ${ONNX}'s embedded model description is invalid: module.firing`],
  },
  {
    name: "sidecar with an invalid input spec",
    breaks: (files) =>
      editSidecar(
        files,
        (json) => (json.input_marking_spec = { p_application: { constant: "x" } }),
      ),
    expect: [
      `Cannot load bundle: ${SIDECAR} is invalid: input_marking_spec.p_application.constant`,
    ],
  },
];

Deno.test("loadBundle() rejects a broken bundle with a message naming the file", async (t) => {
  const model = await exampleModel("rest_serving");
  const valid = await compileBundle(model, { savedAt: SAVED_AT });
  for (const c of BROKEN) {
    await t.step(c.name, async () => {
      const files = await c.breaks({ onnx: valid.onnx, sidecar: valid.sidecar }, model);
      const error = await assertRejectsWith(
        () => loadBundle(ORT, { ...files, onnxName: ONNX, sidecarName: SIDECAR }),
        BundleError,
        c.expect[0]!,
      );
      for (const text of c.expect.slice(1)) assert.ok(error.message.includes(text));
      assert.ok(!error.message.includes("\n"), "one line");
      assert.ok(!error.message.endsWith("."), "no final period");
    });
  }
});

async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
