/**
 * `scoreRows()` (what `batch` scores with) gives exactly `scoreTraces()`'s numbers (what the
 * server's `/anomaly` gives) on every conformance model: the same residuals per transition and
 * the same score, bit for bit, for traces with known, unknown, repeated and no events.
 *
 * @module
 */

import assert from "node:assert/strict";
import { type AnomalyRequest, scoreTraces } from "../../../core/ops/anomaly.ts";
import { scoreRows } from "../../../core/ops/anomaly_rows.ts";
import { loadConformanceModel } from "../../server/models.ts";
import { RECORDED_MODELS } from "../../conformance/fixtures.ts";

Deno.test("scoreRows() equals scoreTraces() on every conformance model", async (t) => {
  assert.ok(RECORDED_MODELS.length >= 5);
  for (const name of RECORDED_MODELS) {
    await t.step(name, async () => {
      await using model = await loadConformanceModel(name);
      const labels = model.net.transitions.map((id) => model.label(id));
      const places = model.net.places;
      const requests: AnomalyRequest[] = labels.map((label, i) => ({
        input_marking: new Map([[places[i % places.length]!, (i % 5) / 4]]),
        input_values: new Map([[places[(i + 1) % places.length]!, i * 10]]),
        events: [{ name: label }, { name: "not a label" }, {
          name: labels[(i * 3) % labels.length]!,
        }],
      }));
      requests.push({ input_marking: new Map(), events: [] });
      const expected = await scoreTraces(model, requests);
      const rows = await model.run(
        requests.map((r) => ({ marking: r.input_marking, values: r.input_values ?? new Map() })),
        { withGradient: false },
      );
      const T = model.net.transitions.length;
      const transitions = new Float32Array(rows.length * T);
      rows.forEach((row, r) => transitions.set(row.transitions, r * T));
      const got = scoreRows(model, transitions, requests.map((r) => r.events));
      assert.deepEqual(got.ids, [...expected[0]!.per_transition_residuals.keys()]);
      expected.forEach((answer, r) => {
        assert.equal(got.scores[r], answer.trace_score, `trace ${r} score`);
        got.ids.forEach((id, j) => {
          assert.equal(
            got.residuals[r * got.ids.length + j],
            answer.per_transition_residuals.get(id),
            `trace ${r} ${id}`,
          );
        });
      });
    });
  }
});
