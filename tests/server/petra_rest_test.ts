/**
 * PETRA's REST tests: test_rest.py on its XOR fixture with the exact
 * reference numbers, and test_rest_serving on the conformance rest_serving model.
 *
 * @module
 */

import { deepEqual, equal, ok } from "node:assert/strict";
import { createApp } from "../../server/app.ts";
import { assertClose, get, post } from "./http.ts";
import { loadConformanceModel, openModel, xorDescription } from "./models.ts";

const SIX_PATHS = [
  "/healthz",
  "/schema",
  "/forward",
  "/anomaly",
  "/counterfactual",
  "/sensitivity",
];

Deno.test("test_rest.py behaviours on the XOR fixture", async (t) => {
  await using model = await openModel(xorDescription());
  const app = await createApp(model, { title: "PETRA test", version: "0.0.1" });

  await t.step("1 healthz returns ok with module stats", async () => {
    const { status, body } = await get(app, "/healthz");
    equal(status, 200);
    deepEqual(body, { status: "ok", version: "0.0.1", n_places: 3, n_transitions: 2 });
  });

  await t.step("2 schema returns the net structure", async () => {
    const { status, body } = await get(app, "/schema");
    equal(status, 200);
    deepEqual(new Set(body.places), new Set(["p_in", "p_a", "p_b"]));
    deepEqual(body.places, ["p_a", "p_b", "p_in"]);
    deepEqual(body.transitions, { t_a: "Path A", t_b: "Path B" });
    deepEqual(body.initial_marking, {});
    equal(body.has_silent_transitions, false);
    equal(body.has_structural_guards, false);
  });

  await t.step("3 forward returns activations matching torch", async () => {
    const { status, body } = await post(app, "/forward", { input_marking: { p_in: 0.5 } });
    equal(status, 200);
    const { t_a, t_b } = body.transition_activations;
    ok(t_a > 0.7 && t_b < 0.3);
    assertClose(t_a, 0.8320183753967285, 1e-7, "t_a");
    assertClose(t_b, 0.16798162460327148, 1e-7, "t_b");
    deepEqual(Object.keys(body.place_activations), ["p_a", "p_b", "p_in"]);
  });

  await t.step("4 forward handles the value channel when supplied", async () => {
    const { status } = await post(app, "/forward", {
      input_marking: { p_in: 0.5 },
      input_values: { p_in: 1.0 },
    });
    equal(status, 200);
  });

  await t.step("5 anomaly returns residuals for the supplied events", async () => {
    const { status, body } = await post(app, "/anomaly", {
      input_marking: { p_in: 0.5 },
      events: [{ name: "Path A", attributes: {} }],
    });
    equal(status, 200);
    deepEqual(Object.keys(body.per_transition_residuals), ["t_a", "t_b"]);
    for (const residual of Object.values(body.per_transition_residuals)) {
      ok(typeof residual === "number" && residual >= 0);
    }
    assertClose(body.per_transition_residuals.t_a, 0.16798162460327148, 1e-7, "t_a");
    assertClose(body.per_transition_residuals.t_b, 0.16798162460327148, 1e-7, "t_b");
    assertClose(body.trace_score, 0.33596324920654297, 1e-7, "trace_score");
  });

  await t.step("6 counterfactual finds the crossing on the XOR fixture", async () => {
    const { status, body } = await post(app, "/counterfactual", {
      input_marking: { p_in: 0.0 },
      flip_place: "p_in",
      target_transition: "t_a",
      search_range: [0.0, 1.0],
    });
    equal(status, 200);
    equal(body.found, true);
    ok(0.2 < body.counterfactual_input && body.counterfactual_input < 0.5);
    ok(Math.abs(body.counterfactual_activation - 0.5) < 0.05);
    // The reference trace (§4.1): the crossing is at p_in = θa = 0.3.
    ok(Math.abs(body.counterfactual_activation - 0.5) < 1e-3);
    assertClose(body.counterfactual_input, 0.3, 1e-3, "counterfactual_input");
    equal(body.original_input, 0);
    assertClose(body.original_activation, 0.08317269384860992, 1e-6, "original_activation");
    equal(body.target_label, "Path A");
    equal(body.flipped_place, "p_in");
    equal(body.flipped_channel, "marking");
  });

  await t.step("7 counterfactual returns found false when there is no crossing", async () => {
    const { status, body } = await post(app, "/counterfactual", {
      input_marking: { p_in: 1.0 },
      flip_place: "p_in",
      target_transition: "t_a",
      search_range: [0.95, 1.0],
    });
    equal(status, 200);
    deepEqual(body, { found: false, target_transition: "t_a" });
  });

  await t.step("8 counterfactual rejects an unknown target transition", async () => {
    const { status, body } = await post(app, "/counterfactual", {
      input_marking: { p_in: 0.5 },
      flip_place: "p_in",
      target_transition: "t_does_not_exist",
    });
    equal(status, 400);
    ok(body.detail.includes("not in the net's transition set"));
  });

  await t.step("9 counterfactual rejects an unknown flip place", async () => {
    const { status, body } = await post(app, "/counterfactual", {
      input_marking: {},
      flip_place: "p_does_not_exist",
      target_transition: "t_a",
    });
    equal(status, 400);
    ok(body.detail.includes("not in the net's place set"));
  });

  await t.step("10 sensitivity returns gradients at the decision boundary", async () => {
    const { status, body } = await post(app, "/sensitivity", {
      input_marking: { p_in: 0.3 },
      target_transition: "t_a",
    });
    equal(status, 200);
    equal(body.target_transition, "t_a");
    equal(body.target_label, "Path A");
    ok("p_in" in body.marking_gradients);
    ok(Math.abs(body.marking_gradients.p_in) > 0.5);
    assertClose(body.marking_gradients.p_in, 2.0, 1e-6, "d t_a / d p_in");
    assertClose(body.base_activation, 0.5, 1e-6, "base_activation");
  });

  await t.step("11 sensitivity rejects an unknown target transition", async () => {
    const { status } = await post(app, "/sensitivity", {
      input_marking: { p_in: 0.3 },
      target_transition: "t_does_not_exist",
    });
    equal(status, 400);
  });

  await t.step("12 openapi schema is served", async () => {
    const { status, body } = await get(app, "/openapi.json");
    equal(status, 200);
    for (const path of SIX_PATHS) ok(path in body.paths, path);
  });
});

Deno.test("test_rest_serving behaviours on the rest_serving model", async (t) => {
  await using model = await loadConformanceModel("rest_serving");
  const app = await createApp(model, { version: "0.0.1" });

  await t.step("healthz counts places and transitions", async () => {
    const { body } = await get(app, "/healthz");
    deepEqual(body, { status: "ok", version: "0.0.1", n_places: 3, n_transitions: 2 });
  });

  await t.step("schema has the labels and the initial marking", async () => {
    const { body } = await get(app, "/schema");
    deepEqual(body.transitions, { t_approve: "approve loan", t_decline: "decline loan" });
    deepEqual(body.initial_marking, { p_application: 1 });
  });

  await t.step("forward routes high risk to approve, low risk to decline", async () => {
    const high = await post(app, "/forward", { input_marking: { p_application: 0.9 } });
    const a = high.body.transition_activations;
    ok(a.t_approve > a.t_decline);
    const low = await post(app, "/forward", { input_marking: { p_application: 0.1 } });
    const b = low.body.transition_activations;
    ok(b.t_decline > b.t_approve);
  });

  await t.step("an anomalous trace scores higher than a conformant one", async () => {
    const score = async (name: string) =>
      (await post(app, "/anomaly", {
        input_marking: { p_application: 0.9 },
        events: [{ name, attributes: {} }],
        attributes: {},
      })).body;
    const conformant = await score("approve loan");
    const anomalous = await score("decline loan");
    ok(anomalous.trace_score > conformant.trace_score);
    for (const answer of [conformant, anomalous]) {
      deepEqual(Object.keys(answer.per_transition_residuals), ["t_approve", "t_decline"]);
    }
  });

  await t.step("counterfactual from 0.1 is found above the original input", async () => {
    const { status, body } = await post(app, "/counterfactual", {
      input_marking: { p_application: 0.1 },
      flip_place: "p_application",
      target_transition: "t_approve",
    });
    equal(status, 200);
    equal(body.found, true);
    equal(body.original_input, 0.1);
    ok(0.1 < body.counterfactual_input && body.counterfactual_input < 1.0);
  });

  await t.step("sensitivity at 0.5 depends on p_application", async () => {
    const { body } = await post(app, "/sensitivity", {
      input_marking: { p_application: 0.5 },
      target_transition: "t_approve",
    });
    ok(Math.abs(body.marking_gradients.p_application) > 1e-6);
  });

  await t.step("openapi lists the six paths", async () => {
    const { body } = await get(app, "/openapi.json");
    for (const path of SIX_PATHS) ok(path in body.paths, path);
  });
});
