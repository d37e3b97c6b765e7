/**
 * `readPtModel` on PETRA's own `.pt` files: the description read from each conformance
 * model's `model.pt` equals its `model.json` on every field that file has (parameters bit for
 * bit), compiles to the very same bundle bytes, survives what newer torch versions add to the
 * zip, keeps ids such as `__proto__` as plain keys, and refuses Python callables by name.
 *
 * @module
 */

import assert from "node:assert/strict";
import { compileBundle } from "../../../core/bundle/mod.ts";
import { ModelDescriptionError, parseModelDescription } from "../../../core/net/parse.ts";
import { arcKey } from "../../../core/net/types.ts";
import { describePetraModule } from "../../../core/pt/describe_petra_module.ts";
import { PyGlobal, type PyObject, PyTuple } from "../../../core/pt/pickle_values.ts";
import { readPtModel } from "../../../core/pt/read_pt_model.ts";
import { unpickle } from "../../../core/pt/unpickle.ts";
import {
  CONFORMANCE,
  readConformanceDescription,
  RECORDED_MODELS,
} from "../../conformance/fixtures.ts";
import { fixtureEntries, fixtureSidecar, renameStrings, torchZip } from "./pickles.ts";

const SAVED_AT = new Date("2026-11-21T13:06:14Z");

async function readFixture(model: string) {
  return readPtModel({
    pt: await Deno.readFile(new URL(`${model}/model.pt`, CONFORMANCE)),
    sidecar: await fixtureSidecar(model),
    ptName: "model.pt",
    sidecarName: "model.pt.meta.json",
  });
}

async function modelJson(model: string): Promise<Record<string, Record<string, unknown>>> {
  return await readConformanceDescription(model) as Record<string, Record<string, unknown>>;
}

/** Float32 bits of a number, so "equal" means bit-equal, -0 and NaN included. */
function bits(value: unknown): number {
  assert.equal(typeof value, "number");
  const view = new DataView(new ArrayBuffer(4));
  view.setFloat32(0, value as number, true);
  assert.ok(Object.is(view.getFloat32(0, true), value), `${value} is not a float32 value`);
  return view.getUint32(0, true);
}

for (const name of RECORDED_MODELS) {
  Deno.test(`readPtModel() reads ${name}/model.pt as its model.json`, async () => {
    const { description, model } = await readFixture(name);
    const expected = await modelJson(name);
    const ours = description as Record<string, Record<string, unknown>>;
    for (const [key, value] of Object.entries(expected)) {
      if (key === "module") continue;
      if (typeof value !== "object" || value === null) {
        assert.deepEqual(ours[key], value, key);
        continue;
      }
      for (const [inner, innerValue] of Object.entries(value)) {
        assert.deepEqual(ours[key]?.[inner], innerValue, `${key}.${inner}`);
      }
    }
    // The module's settings and the recorded order; the rest of model.json's module is
    // PETRA's internals (the fixtures' README), derived by the compiler.
    for (const key of ["sharpness", "num_steps", "firing", "routing", "topological_order"]) {
      assert.deepEqual(ours.module?.[key], expected.module?.[key], `module.${key}`);
    }
    const weights = expected.parameters!.arc_weights as {
      from: string;
      to: string;
      weight: number;
    }[];
    assert.ok(weights.length > 0);
    for (const { from, to, weight } of weights) {
      const got = model.parameters.arcWeights.get(arcKey(from, to));
      assert.equal(bits(got), bits(weight), `weight ${from} -> ${to}`);
    }
    for (const table of ["transition_thresholds", "guard_thresholds"] as const) {
      const map = table === "transition_thresholds"
        ? model.parameters.transitionThresholds
        : model.parameters.guardThresholds;
      const entries = Object.entries(expected.parameters![table] as Record<string, number>);
      assert.equal(map.size, entries.length, table);
      for (const [id, value] of entries) {
        assert.equal(bits(map.get(id)), bits(value), `${table} ${id}`);
      }
    }
  });

  Deno.test(`compiling ${name}/model.pt gives the bundle model.json gives`, async () => {
    const fromPt = await compileBundle((await readFixture(name)).model, { savedAt: SAVED_AT });
    const fromJson = await compileBundle(parseModelDescription(await modelJson(name)), {
      savedAt: SAVED_AT,
    });
    assert.deepEqual(fromPt.onnx, fromJson.onnx);
    assert.equal(fromPt.sidecar, fromJson.sidecar);
  });
}

Deno.test("readPtModel() takes a newer torch zip: other top folder, byteorder, serialization_id", async () => {
  const entries = await fixtureEntries("triage_softmax_ste");
  const pt = torchZip("archive", {
    ...entries,
    "byteorder": new TextEncoder().encode("little"),
    ".data/serialization_id": new TextEncoder().encode("1234567890"),
    ".data/version": new TextEncoder().encode("3\n"),
  });
  const read = readPtModel({
    pt,
    sidecar: await fixtureSidecar("triage_softmax_ste"),
    ptName: "newer.pt",
    sidecarName: "newer.pt.meta.json",
  });
  assert.deepEqual(read.description, (await readFixture("triage_softmax_ste")).description);
});

Deno.test("readPtModel() keeps ids such as __proto__ and constructor as plain keys", async () => {
  const entries = await fixtureEntries("rest_serving");
  const names = new Map([["p_approved", "__proto__"], ["t_approve", "constructor"]]);
  const sidecar = await fixtureSidecar("rest_serving");
  const { model, description } = readPtModel({
    pt: torchZip("model", { ...entries, "data.pkl": renameStrings(entries["data.pkl"]!, names) }),
    sidecar,
    ptName: "proto.pt",
    sidecarName: "proto.pt.meta.json",
  });
  assert.ok(model.net.places.includes("__proto__"));
  assert.ok(model.net.transitions.includes("constructor"));
  assert.equal(model.parameters.transitionThresholds.has("constructor"), true);
  const thresholds = (description as { parameters: { transition_thresholds: object } }).parameters
    .transition_thresholds;
  assert.ok(Object.hasOwn(thresholds, "constructor"));
  assert.equal(Object.getPrototypeOf(thresholds), Object.prototype);
  assert.equal(({} as Record<string, unknown>).approve, undefined);
});

/** The fixture's object graph, with `change` applied to the net's state. */
async function changedGraph(change: (net: Map<unknown, unknown>) => void) {
  const entries = await fixtureEntries("credit_approval_coloured");
  const root = unpickle(entries["data.pkl"]!) as PyObject;
  const net = root.state!.get("net") as PyObject;
  change(net.state as Map<unknown, unknown>);
  const storages = new Map(
    Object.entries(entries).filter(([k]) => k.startsWith("data/")).map(([k, v]) => [k.slice(5), v]),
  );
  return describePetraModule(root, storages);
}

Deno.test("a torch guard is refused by name, as compile refuses it", async () => {
  const description = await changedGraph((net) => {
    (net.get("transition_torch_guards") as Map<unknown, unknown>)
      .set("t_approve", new PyGlobal("petri_net_nn.compiler _fire_sigmoid", "function"));
  });
  assert.throws(() => parseModelDescription(description), (error: unknown) => {
    assert.ok(error instanceof ModelDescriptionError);
    assert.match(error.message, /net\.torch_guards: cannot compile torch guards .*'t_approve'/);
    return true;
  });
});

Deno.test("a callable output value or token-game guard is refused, naming where it is", async () => {
  const fn = new PyGlobal("petri_net_nn.compiler _fire_ste", "function");
  await assert.rejects(
    changedGraph((net) => {
      (net.get("arc_output_values") as Map<unknown, unknown>)
        .set(new PyTuple(["t_approve", "p_approved"]), fn);
    }),
    /arc_output_values\['t_approve' -> 'p_approved'\] is the global .*only constant output values/,
  );
  await assert.rejects(
    changedGraph((net) => {
      (net.get("transition_guards") as Map<unknown, unknown>).set("t_decline", fn);
    }),
    /transition_guards holds Python callables for 't_decline'/,
  );
});

Deno.test("a recorded _order that contradicts the net is refused", async () => {
  const entries = await fixtureEntries("rest_serving");
  // Swap two ids inside _order only: rename inside the whole pickle would rename the net too,
  // so this moves a place after the transition it feeds by editing the object graph.
  const root = unpickle(entries["data.pkl"]!) as PyObject;
  const order = root.state!.get("_order") as PyTuple;
  root.state!.set("_order", new PyTuple([...order.items].reverse()));
  const storages = new Map(
    Object.entries(entries).filter(([k]) => k.startsWith("data/")).map(([k, v]) => [k.slice(5), v]),
  );
  assert.throws(
    () => describePetraModule(root, storages),
    /_order puts .* before .*against the arc/,
  );
});
