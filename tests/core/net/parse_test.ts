/**
 * Tests of {@link parseModelDescription} and {@link describeModel}: one table case per
 * validation rule (from `invalid_models.json`), problems reported together, the conformance
 * models and ids that clash with `Object.prototype`.
 *
 * @module
 */

import assert from "node:assert/strict";
import {
  CONFORMANCE,
  readConformanceDescription,
  RECORDED_MODELS,
} from "../../conformance/fixtures.ts";
import {
  describeModel,
  ModelDescriptionError,
  parseModelDescription,
} from "../../../core/net/parse.ts";
import { arcKey } from "../../../core/net/types.ts";

interface ExpectedIssue {
  path: string;
  contains: string[];
}

interface PatchOp {
  op: "add" | "remove" | "replace";
  path: string;
  value?: unknown;
}

interface InvalidCase {
  name: string;
  patch?: PatchOp[];
  model?: unknown;
  expect: ExpectedIssue[];
}

interface InvalidFixture {
  base: unknown;
  cases: InvalidCase[];
}

const fixture: InvalidFixture = JSON.parse(
  await Deno.readTextFile(new URL("./invalid_models.json", import.meta.url)),
);

/** Applies RFC 6902 add / remove / replace operations to a copy of `doc`. */
function applyPatch(doc: unknown, ops: readonly PatchOp[]): unknown {
  const root = structuredClone(doc);
  for (const op of ops) {
    const keys = op.path.split("/").slice(1).map((k) =>
      k.replaceAll("~1", "/").replaceAll("~0", "~")
    );
    const last = keys.pop()!;
    let parent = root as Record<string, unknown>;
    for (const key of keys) parent = parent[key] as Record<string, unknown>;
    if (Array.isArray(parent)) {
      const index = last === "-" ? parent.length : Number(last);
      if (op.op === "add") parent.splice(index, 0, op.value);
      else if (op.op === "remove") parent.splice(index, 1);
      else parent[index] = op.value;
    } else if (op.op === "remove") {
      delete parent[last];
    } else {
      // defineProperty, so a patch may add a key such as "__proto__" as an own key.
      Object.defineProperty(parent, last, {
        value: op.value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return root;
}

/** Parses `doc`, expecting a {@link ModelDescriptionError}, and returns it. */
function parseError(doc: unknown): ModelDescriptionError {
  try {
    parseModelDescription(doc);
  } catch (error) {
    assert.ok(error instanceof ModelDescriptionError, `unexpected error: ${error}`);
    return error;
  }
  assert.fail("parseModelDescription() accepted an invalid model description");
}

/** The description with only the keys docs/model_format.md documents. */
function documentedPart(doc: Record<string, unknown>): Record<string, unknown> {
  const pick = (object: unknown, keys: string[]) =>
    Object.fromEntries(keys.map((k) => [k, (object as Record<string, unknown>)[k]]));
  return {
    ...pick(doc, [
      "format",
      "scenario_name",
      "scenario_description",
      "input_marking_spec",
      "input_values_spec",
      "petra_version",
    ]),
    net: pick(doc.net, [
      "places",
      "transitions",
      "arcs",
      "inhibitor_arcs",
      "initial_marking",
      "labels",
      "silent_transitions",
      "structural_guards",
      "rates",
      "durations",
      "arc_output_values",
    ]),
    module: pick(doc.module, ["sharpness", "num_steps", "firing", "routing"]),
    parameters: pick(doc.parameters, ["arc_weights", "transition_thresholds", "guard_thresholds"]),
  };
}

Deno.test("parseModelDescription() accepts the fixture's base model", () => {
  const model = parseModelDescription(fixture.base);
  assert.deepEqual(model.net.places, ["p_in", "p_lock", "p_mid", "p_out"]);
  assert.equal(model.parameters.guardThresholds.get("t_a"), 10.5);
});

Deno.test("parseModelDescription() rejects each invalid model description", async (t) => {
  for (const c of fixture.cases) {
    await t.step(`parseModelDescription() ${c.name}`, () => {
      const doc = c.model !== undefined ? c.model : applyPatch(fixture.base, c.patch ?? []);
      const error = parseError(doc);
      const lines = error.message.split("\n");
      for (const want of c.expect) {
        const issue = error.issues.find((i) => i.path === want.path);
        assert.ok(issue, `no issue at ${want.path}; got:\n${error.message}`);
        for (const text of want.contains) {
          assert.ok(issue.message.includes(text), `${want.path}: ${issue.message} lacks ${text}`);
        }
        assert.ok(lines.includes(`${issue.path}: ${issue.message}`));
      }
      assert.equal(error.issues.length, c.expect.length, `unexpected issues:\n${error.message}`);
    });
  }
});

Deno.test("parseModelDescription() reports several problems together", () => {
  const doc = applyPatch(fixture.base, [
    { op: "replace", path: "/format", value: "petri-net-model/0" },
    { op: "add", path: "/net/arcs/-", value: { from: "p_in", to: "p_out" } },
    { op: "replace", path: "/net/rates/t_a", value: -1 },
    { op: "replace", path: "/module/firing", value: "relu" },
    { op: "remove", path: "/parameters/transition_thresholds/t_a" },
  ]);
  const error = parseError(doc);
  assert.deepEqual(error.issues.map((i) => i.path), [
    "format",
    "net.arcs[4]",
    "net.rates.t_a",
    "module.firing",
    "parameters.transition_thresholds",
  ]);
  assert.equal(error.message.split("\n").length, 5);
  assert.match(error.message, /^net\.arcs\[4\]: arc 'p_in' -> 'p_out' connects two places$/m);
  assert.equal(error.name, "ModelDescriptionError");
});

Deno.test("parseModelDescription() reads every conformance model and describeModel() round-trips it", async (t) => {
  let count = 0;
  for (const name of RECORDED_MODELS) {
    count++;
    await t.step(name, async () => {
      const original = await readConformanceDescription(name);
      const model = parseModelDescription(original);
      const described = describeModel(model);
      assert.deepEqual(parseModelDescription(JSON.parse(JSON.stringify(described))), model);
      // PETRA's exports are already canonical, so only the ignored extras differ.
      assert.deepEqual(described, documentedPart(original));
      assert.equal(model.parameters.arcWeights.size, model.net.arcs.length);
    });
  }
  assert.ok(count >= 5, `expected the five conformance models in ${CONFORMANCE.pathname}`);
});

Deno.test("parseModelDescription() treats __proto__, constructor and toString as ordinary ids", () => {
  const text = `{
    "format": "petri-net-model/1",
    "input_marking_spec": {"__proto__": {"attribute": "amount"}},
    "net": {
      "places": ["__proto__", "hasOwnProperty", "valueOf"],
      "transitions": ["constructor", "toString"],
      "arcs": [
        {"from": "__proto__", "to": "constructor"},
        {"from": "constructor", "to": "hasOwnProperty"},
        {"from": "hasOwnProperty", "to": "toString"},
        {"from": "toString", "to": "valueOf"}
      ],
      "initial_marking": {"__proto__": 1},
      "labels": {"constructor": "build", "toString": "print"},
      "structural_guards": {"constructor": {"place": "__proto__", "op": ">", "value": 2}},
      "rates": {"toString": 3}
    },
    "parameters": {
      "arc_weights": [
        {"from": "__proto__", "to": "constructor", "weight": 1},
        {"from": "constructor", "to": "hasOwnProperty", "weight": 2},
        {"from": "hasOwnProperty", "to": "toString", "weight": 3},
        {"from": "toString", "to": "valueOf", "weight": 4}
      ],
      "transition_thresholds": {"constructor": 0.5, "toString": 0.25},
      "guard_thresholds": {"constructor": 2.5}
    }
  }`;
  const model = parseModelDescription(JSON.parse(text));
  assert.deepEqual(model.net.places, ["__proto__", "hasOwnProperty", "valueOf"]);
  assert.equal(model.net.initialMarking.get("__proto__"), 1);
  assert.equal(model.net.labels.get("constructor"), "build");
  assert.equal(model.net.structuralGuards.get("constructor")?.place, "__proto__");
  assert.equal(model.parameters.arcWeights.get(arcKey("__proto__", "constructor")), 1);
  assert.deepEqual(model.inputMarkingSpec.get("__proto__"), { attribute: "amount" });

  const described = describeModel(model) as {
    net: { initial_marking: object; labels: object };
    parameters: { transition_thresholds: object };
  };
  assert.ok(Object.hasOwn(described.net.initial_marking, "__proto__"));
  assert.deepEqual(Object.keys(described.net.labels), ["constructor", "toString"]);
  assert.deepEqual(Object.keys(described.parameters.transition_thresholds), [
    "constructor",
    "toString",
  ]);
  const reread = parseModelDescription(JSON.parse(JSON.stringify(described)));
  assert.deepEqual(reread, model);

  // Object.prototype must not stand in for a missing entry.
  const missing = JSON.parse(text);
  delete missing.parameters.transition_thresholds.constructor;
  missing.net.initial_marking = JSON.parse(`{"toString": 1, "__proto__": 1}`);
  const error = parseError(missing);
  assert.deepEqual(error.issues.map((i) => i.message), [
    "initial marking names 'toString', which is a transition, not a place",
    "no threshold for transition 'constructor'",
  ]);
});

Deno.test("parseModelDescription() reads a __proto__ transition", () => {
  const model = parseModelDescription(JSON.parse(`{
    "format": "petri-net-model/1",
    "net": {"places": ["constructor", "toString"], "transitions": ["__proto__"],
            "arcs": [{"from": "constructor", "to": "__proto__"},
                     {"from": "__proto__", "to": "toString"}],
            "durations": {"__proto__": 2}},
    "module": {"num_steps": 3},
    "parameters": {"arc_weights": [{"from": "constructor", "to": "__proto__", "weight": 1},
                                   {"from": "__proto__", "to": "toString", "weight": 1}],
                   "transition_thresholds": {"__proto__": 0}}
  }`));
  assert.equal(model.net.durations.get("__proto__"), 2);
  assert.equal(model.parameters.transitionThresholds.get("__proto__"), 0);
  assert.deepEqual(parseModelDescription(describeModel(model)), model);
});

Deno.test("parseModelDescription() applies the documented defaults", () => {
  const doc = applyPatch(fixture.base, [
    { op: "remove", path: "/module" },
    { op: "remove", path: "/net/inhibitor_arcs" },
    { op: "remove", path: "/net/torch_guards" },
    { op: "replace", path: "/net/labels", value: { t_a: "t_a" } },
    { op: "replace", path: "/net/rates", value: { t_a: 1 } },
    { op: "replace", path: "/scenario_name", value: null },
  ]);
  const model = parseModelDescription(doc);
  assert.deepEqual(model.module, {
    sharpness: 1,
    numSteps: 0,
    firing: "sigmoid",
    routing: "independent",
  });
  assert.deepEqual(model.net.inhibitorArcs, []);
  assert.equal(model.net.labels.size, 0);
  assert.equal(model.net.rates.size, 0);
  assert.ok(!("scenarioName" in model));
});

Deno.test("parseModelDescription() sorts ids and arcs", () => {
  const doc = applyPatch(fixture.base, [
    { op: "replace", path: "/net/places", value: ["p_out", "p_mid", "p_lock", "p_in"] },
    { op: "replace", path: "/net/transitions", value: ["t_b", "t_a"] },
  ]);
  const arcs = (doc as { net: { arcs: unknown[] } }).net.arcs.reverse();
  assert.equal(arcs.length, 4);
  const model = parseModelDescription(doc);
  assert.deepEqual(model.net.places, ["p_in", "p_lock", "p_mid", "p_out"]);
  assert.deepEqual(model.net.transitions, ["t_a", "t_b"]);
  assert.deepEqual(model.net.arcs.map((a) => `${a.from}>${a.to}`), [
    "p_in>t_a",
    "p_mid>t_b",
    "t_a>p_mid",
    "t_b>p_out",
  ]);
  assert.deepEqual(
    [...model.parameters.arcWeights.keys()],
    model.net.arcs.map((a) => arcKey(a.from, a.to)),
  );
});

Deno.test("parseModelDescription() lets constant win over attribute in an input spec", () => {
  const doc = applyPatch(fixture.base, [
    { op: "replace", path: "/input_values_spec/p_in", value: { constant: 2, attribute: "x" } },
  ]);
  assert.deepEqual(parseModelDescription(doc).inputValuesSpec.get("p_in"), { constant: 2 });
});
