/**
 * One test per error case and limit of docs/http_api.md (plus D10, D12 and D15 of
 * docs/semantics.md): status and body shape, against real compiled models.
 *
 * @module
 */

import { deepEqual, equal, match, ok } from "node:assert/strict";
import type { Model } from "../../core/bundle/mod.ts";
import {
  type App,
  type AppOptions,
  createApp,
  DEFAULT_DESCRIPTION,
  DEFAULT_TITLE,
} from "../../server/app.ts";
import { decode, get, post } from "./http.ts";
import { openModel, trickyIdsDescription, xorDescription } from "./models.ts";

/** Runs `fn` with an app over a freshly compiled model (the XOR fixture unless given), released afterwards. */
async function withApp(
  fn: (app: App, model: Model) => Promise<void>,
  options: AppOptions = {},
  description: unknown = xorDescription(),
): Promise<void> {
  await using model = await openModel(description);
  await fn(await createApp(model, options), model);
}

const XOR_BASE = { input_marking: { p_in: 0 }, flip_place: "p_in", target_transition: "t_a" };

/** Asserts a 422 whose issues are FastAPI-shaped and include one of `type` at `loc`. */
function assertValidation(
  answer: { status: number; body: { detail: unknown } },
  type: string,
  loc: readonly (string | number)[],
): void {
  equal(answer.status, 422, JSON.stringify(answer.body));
  const issues = answer.body.detail;
  ok(Array.isArray(issues) && issues.length > 0, "detail is a non-empty list");
  for (const issue of issues) {
    ok(Array.isArray(issue.loc) && issue.loc[0] === "body", `loc starts with body: ${issue.loc}`);
    equal(typeof issue.msg, "string");
    equal(typeof issue.type, "string");
  }
  ok(
    issues.some((i: { type: string; loc: unknown }) =>
      i.type === type && JSON.stringify(i.loc) === JSON.stringify(loc)
    ),
    `no ${type} issue at ${JSON.stringify(loc)} in ${JSON.stringify(issues)}`,
  );
}

Deno.test("flip_channel is 'marking' or 'value', default 'marking'", async () => {
  await withApp(async (app) => {
    const byDefault = await post(app, "/counterfactual", XOR_BASE);
    equal(byDefault.status, 200);
    equal(byDefault.body.flipped_channel, "marking");
    const value = await post(app, "/counterfactual", { ...XOR_BASE, flip_channel: "value" });
    equal(value.status, 200);
    deepEqual(Object.keys(value.body).sort(), ["found", "target_transition"]);
    const bad = await post(app, "/counterfactual", { ...XOR_BASE, flip_channel: "tokens" });
    assertValidation(bad, "literal_error", ["body", "flip_channel"]);
    equal(bad.body.detail[0].msg, "Input should be 'marking' or 'value'");
    deepEqual(bad.body.detail[0].ctx, { expected: "'marking' or 'value'" });
  });
});

Deno.test("search_range is [lo, hi], finite, lo < hi, default [0, 1]", async () => {
  await withApp(async (app) => {
    const byDefault = await post(app, "/counterfactual", XOR_BASE);
    ok(0 <= byDefault.body.counterfactual_input && byDefault.body.counterfactual_input <= 1);
    const wide = await post(app, "/counterfactual", { ...XOR_BASE, search_range: [-5, 5] });
    equal(wide.status, 200);
    const cases: [unknown, string, (string | number)[]][] = [
      [[1, 0], "value_error", ["body", "search_range"]],
      [[0.5, 0.5], "value_error", ["body", "search_range"]],
      [[0, 1, 2], "too_long", ["body", "search_range"]],
      [[0], "missing", ["body", "search_range", 1]],
      [["0", "1"], "float_type", ["body", "search_range", 0]],
      [{ lo: 0, hi: 1 }, "tuple_type", ["body", "search_range"]],
      [null, "tuple_type", ["body", "search_range"]],
    ];
    for (const [range, type, loc] of cases) {
      assertValidation(
        await post(app, "/counterfactual", { ...XOR_BASE, search_range: range }),
        type,
        loc,
      );
    }
    // 1e999 parses to Infinity: not finite
    const infinite = await post(
      app,
      "/counterfactual",
      '{"input_marking": {}, "flip_place": "p_in", "target_transition": "t_a", ' +
        '"search_range": [0, 1e999]}',
    );
    assertValidation(infinite, "finite_number", ["body", "search_range", 1]);
  });
});

Deno.test("tolerance is a finite number > 0, default 1e-3", async () => {
  await withApp(async (app) => {
    const byDefault = await post(app, "/counterfactual", XOR_BASE);
    ok(Math.abs(byDefault.body.counterfactual_activation - 0.5) < 1e-3);
    const coarse = await post(app, "/counterfactual", { ...XOR_BASE, tolerance: 0.2 });
    equal(coarse.status, 200);
    ok(Math.abs(coarse.body.counterfactual_activation - 0.5) < 0.2);
    for (const tolerance of [0, -1]) {
      const answer = await post(app, "/counterfactual", { ...XOR_BASE, tolerance });
      assertValidation(answer, "greater_than", ["body", "tolerance"]);
      deepEqual(answer.body.detail[0].ctx, { gt: 0 });
    }
    assertValidation(
      await post(app, "/counterfactual", { ...XOR_BASE, tolerance: "small" }),
      "float_type",
      ["body", "tolerance"],
    );
  });
});

Deno.test("input_values may be absent or null; attributes default to {}", async () => {
  await withApp(async (app) => {
    const absent = await post(app, "/forward", { input_marking: { p_in: 0.5 } });
    const nulled = await post(app, "/forward", {
      input_marking: { p_in: 0.5 },
      input_values: null,
    });
    const empty = await post(app, "/forward", { input_marking: { p_in: 0.5 }, input_values: {} });
    equal(absent.status, 200);
    deepEqual(nulled.body, absent.body);
    deepEqual(empty.body, absent.body);
    const anomaly = await post(app, "/anomaly", {
      input_marking: { p_in: 0.5 },
      events: [{ name: "Path A" }],
    });
    equal(anomaly.status, 200);
    assertValidation(
      await post(app, "/forward", { input_marking: { p_in: 0.5 }, input_values: [1] }),
      "dict_type",
      ["body", "input_values"],
    );
  });
});

Deno.test("attribute values: strings, numbers and booleans (as JSON text), nothing else", async () => {
  await withApp(async (app) => {
    const base = { input_marking: { p_in: 0.5 }, events: [{ name: "Path A" }] };
    const plain = await post(app, "/anomaly", base);
    const typed = await post(app, "/anomaly", {
      ...base,
      events: [{ name: "Path A", attributes: { n: 5, ok: true, s: "x" } }],
      attributes: { amount: 5000, flag: false },
    });
    equal(typed.status, 200);
    deepEqual(typed.body, plain.body);
    for (const bad of [null, { nested: 1 }, [1]]) {
      assertValidation(
        await post(app, "/anomaly", { ...base, attributes: { a: bad } }),
        "union_type",
        ["body", "attributes", "a"],
      );
      assertValidation(
        await post(app, "/anomaly", { ...base, events: [{ name: "x", attributes: { a: bad } }] }),
        "union_type",
        ["body", "events", 0, "attributes", "a"],
      );
    }
  });
});

Deno.test("ids in input_marking / input_values that are not places: 400 quoting them sorted", async () => {
  await withApp(async (app) => {
    const marking = await post(app, "/forward", {
      input_marking: { t_a: 1, p_x: 0.5, p_in: 0.2, "it's": 1 },
    });
    equal(marking.status, 400);
    equal(
      marking.body.detail,
      "input_marking has ids that are not in the net's place set: \"it's\", 'p_x', 't_a'",
    );
    const values = await post(app, "/sensitivity", {
      input_marking: { p_in: 0.2 },
      input_values: { p_zz: 1, p_aa: 2 },
      target_transition: "t_a",
    });
    equal(values.status, 400);
    equal(
      values.body.detail,
      "input_values has ids that are not in the net's place set: 'p_aa', 'p_zz'",
    );
    for (const path of ["/anomaly", "/counterfactual"]) {
      const answer = await post(app, path, {
        ...XOR_BASE,
        events: [],
        input_marking: { p_bogus: 1 },
      });
      equal(answer.status, 400, path);
      match(answer.body.detail, /^input_marking has ids .*'p_bogus'$/);
    }
  });
});

Deno.test("400 details for flip_place and target_transition, the place checked first", async () => {
  await withApp(async (app) => {
    const place = await post(app, "/counterfactual", { ...XOR_BASE, flip_place: "p_x" });
    deepEqual([place.status, place.body], [400, {
      detail: "flip_place 'p_x' is not in the net's place set",
    }]);
    const transition = await post(app, "/counterfactual", {
      ...XOR_BASE,
      target_transition: "t_x",
    });
    deepEqual([transition.status, transition.body], [400, {
      detail: "target_transition 't_x' is not in the net's transition set",
    }]);
    const both = await post(app, "/counterfactual", {
      ...XOR_BASE,
      flip_place: "t_a",
      target_transition: "p_in",
    });
    equal(both.body.detail, "flip_place 't_a' is not in the net's place set");
    const sensitivity = await post(app, "/sensitivity", {
      input_marking: {},
      target_transition: "p_in",
    });
    deepEqual([sensitivity.status, sensitivity.body], [400, {
      detail: "target_transition 'p_in' is not in the net's transition set",
    }]);
  });
});

Deno.test("a marking outside [0, 1] is accepted; non-finite numbers are 422", async () => {
  await withApp(async (app) => {
    for (const x of [-100, 1.5, 3, 1e6]) {
      equal((await post(app, "/forward", { input_marking: { p_in: x } })).status, 200, `${x}`);
    }
    for (const literal of ["NaN", "Infinity", "-Infinity"]) {
      assertValidation(
        await post(app, "/forward", `{"input_marking": {"p_in": ${literal}}}`),
        "json_invalid",
        ["body", 0],
      );
    }
    for (const literal of ["1e999", "-1e999"]) {
      assertValidation(
        await post(app, "/forward", `{"input_marking": {"p_in": ${literal}}}`),
        "finite_number",
        ["body", "input_marking", "p_in"],
      );
      assertValidation(
        await post(app, "/forward", `{"input_marking": {}, "input_values": {"p_in": ${literal}}}`),
        "finite_number",
        ["body", "input_values", "p_in"],
      );
    }
    for (const value of ["0.5", true, null]) {
      assertValidation(
        await post(app, "/forward", { input_marking: { p_in: value } }),
        "float_type",
        ["body", "input_marking", "p_in"],
      );
    }
  });
});

Deno.test("malformed bodies are 422 in FastAPI's shape; extra fields are ignored", async () => {
  await withApp(async (app) => {
    const notJson = await post(app, "/forward", "not json");
    assertValidation(notJson, "json_invalid", ["body", 0]);
    deepEqual(Object.keys(notJson.body.detail[0]), ["type", "loc", "msg", "input", "ctx"]);
    equal(notJson.body.detail[0].msg, "JSON decode error");
    assertValidation(await post(app, "/anomaly", "{"), "json_invalid", ["body", 0]);
    assertValidation(await post(app, "/forward", ""), "missing", ["body"]);
    assertValidation(await post(app, "/forward", "[]"), "model_attributes_type", ["body"]);
    assertValidation(await post(app, "/forward", "null"), "model_attributes_type", ["body"]);
    const invalidUtf8 = await decode(
      await app.fetch(
        new Request("http://localhost/forward", {
          method: "POST",
          body: new Uint8Array([0x7b, 0xff, 0x7d]),
        }),
      ),
    );
    assertValidation(invalidUtf8, "json_invalid", ["body", 0]);

    const missing = await post(app, "/counterfactual", { input_marking: {} });
    assertValidation(missing, "missing", ["body", "flip_place"]);
    assertValidation(missing, "missing", ["body", "target_transition"]);
    deepEqual(missing.body.detail[0], {
      type: "missing",
      loc: ["body", "flip_place"],
      msg: "Field required",
      input: { input_marking: {} },
    });
    assertValidation(
      await post(app, "/anomaly", { input_marking: {}, events: [{ attributes: {} }] }),
      "missing",
      ["body", "events", 0, "name"],
    );
    assertValidation(
      await post(app, "/anomaly", { input_marking: {}, events: "Path A" }),
      "list_type",
      ["body", "events"],
    );
    assertValidation(
      await post(app, "/forward", { input_marking: ["p_in"] }),
      "dict_type",
      ["body", "input_marking"],
    );
    assertValidation(
      await post(app, "/sensitivity", { input_marking: {}, target_transition: 5 }),
      "string_type",
      ["body", "target_transition"],
    );
    const extra = await post(app, "/forward", { input_marking: { p_in: 0.5 }, extra: [1, 2] });
    equal(extra.status, 200);
  });
});

Deno.test("a body over the limit is 413, counted while streaming", async () => {
  await withApp(async (app) => {
    const body = JSON.stringify({ input_marking: { p_in: 0.5 }, pad: "x".repeat(200) });
    const declared = await post(app, "/forward", body);
    equal(declared.status, 413);
    equal(declared.body.detail, "The request body is larger than the limit of 128 bytes");
    // No Content-Length: a stream of chunks that never ends on its own.
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(new TextEncoder().encode(" ".repeat(50))),
      cancel: () => {
        cancelled = true;
      },
    });
    const streamed = await decode(
      await app.fetch(new Request("http://localhost/forward", { method: "POST", body: stream })),
    );
    equal(streamed.status, 413);
    equal(typeof streamed.body.detail, "string");
    ok(cancelled, "the upload is cancelled");
    equal((await post(app, "/forward", { input_marking: { p_in: 0.5 } })).status, 200);
  }, { maxBodyBytes: 128 });
});

Deno.test("the default body limit is 1 MiB", async () => {
  await withApp(async (app) => {
    const pad = (n: number) => JSON.stringify({ input_marking: {}, pad: "x".repeat(n) });
    const overhead = pad(0).length;
    equal((await post(app, "/forward", pad((1 << 20) - overhead))).status, 200);
    equal((await post(app, "/forward", pad((1 << 20) - overhead + 1))).status, 413);
  });
});

Deno.test("unknown paths are 404, wrong methods 405 with Allow", async () => {
  await withApp(async (app) => {
    deepEqual(await get(app, "/nope").then((a) => [a.status, a.body]), [404, {
      detail: "Not Found",
    }]);
    deepEqual(await get(app, "/forward/").then((a) => a.status), 404);
    const getOnPost = await get(app, "/forward");
    deepEqual([getOnPost.status, getOnPost.body], [405, { detail: "Method Not Allowed" }]);
    equal(getOnPost.headers.get("allow"), "POST");
    const postOnGet = await post(app, "/healthz", {});
    deepEqual([postOnGet.status, postOnGet.body], [405, { detail: "Method Not Allowed" }]);
    equal(postOnGet.headers.get("allow"), "GET, HEAD");
    const put = await decode(
      await app.fetch(new Request("http://localhost/schema", { method: "PUT", body: "{}" })),
    );
    equal(put.status, 405);
    const head = await app.fetch(new Request("http://localhost/healthz", { method: "HEAD" }));
    equal(head.status, 200);
    equal(await head.text(), "");
    // Method names that Object.prototype knows are methods like any other.
    for (const method of ["constructor", "toString", "hasOwnProperty", "valueOf"]) {
      const odd = await decode(
        await app.fetch(new Request("http://localhost/forward", { method })),
      );
      deepEqual([odd.status, odd.body], [405, { detail: "Method Not Allowed" }], method);
    }
  });
});

Deno.test("a body nested 100,000 deep is a 422 that echoes a shortened input", async () => {
  await withApp(async (app) => {
    const depth = 100_000;
    const body = `{"input_marking": ${"[".repeat(depth)}${"]".repeat(depth)}}`;
    const answer = await decode(
      await app.fetch(new Request("http://localhost/forward", { method: "POST", body })),
    );
    equal(answer.status, 422);
    const issue = (answer.body.detail as { loc: unknown[]; input: unknown }[])[0]!;
    deepEqual(issue.loc, ["body", "input_marking"]);
    ok(JSON.stringify(issue.input).includes('"..."'));
  });
});

Deno.test("JSON is read whatever the Content-Type; answers are application/json", async () => {
  await withApp(async (app) => {
    const expected = await post(app, "/forward", { input_marking: { p_in: 0.5 } });
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/xml"]) {
      const answer = await post(app, "/forward", '{"input_marking": {"p_in": 0.5}}', {
        "content-type": type,
      });
      deepEqual(answer.body, expected.body, type);
    }
    const none = await decode(
      await app.fetch(
        new Request("http://localhost/forward", {
          method: "POST",
          body: new TextEncoder().encode('{"input_marking": {"p_in": 0.5}}'),
        }),
      ),
    );
    deepEqual(none.body, expected.body);
    for (const path of ["/healthz", "/schema", "/openapi.json", "/nope"]) {
      const response = await app.fetch(new Request(`http://localhost${path}`));
      equal(response.headers.get("content-type"), "application/json", path);
      await response.body?.cancel();
    }
  });
});

Deno.test("ids such as __proto__, constructor and toString are ordinary ids", async () => {
  await withApp(
    async (app) => {
      const schema = await get(app, "/schema");
      deepEqual(schema.body.places, ["__proto__", "constructor", "hasOwnProperty"]);
      deepEqual(schema.body.transitions, { toString: "to string" });
      equal(Object.getPrototypeOf(schema.body.initial_marking), Object.prototype);
      ok(Object.hasOwn(schema.body.initial_marking, "__proto__"));

      const text = '{"input_marking": {"__proto__": 0.5, "constructor": 1}, ' +
        '"input_values": {"__proto__": 2}}';
      const forward = await post(app, "/forward", text);
      equal(forward.status, 200);
      deepEqual(Object.keys(forward.body.place_activations), [
        "__proto__",
        "constructor",
        "hasOwnProperty",
      ]);
      equal(forward.body.place_activations.__proto__, 0.5);
      ok(Object.hasOwn(forward.body.transition_activations, "toString"));

      const sensitivity = await post(
        app,
        "/sensitivity",
        '{"input_marking": {"__proto__": 0.5}, "target_transition": "toString"}',
      );
      equal(sensitivity.status, 200);
      deepEqual(Object.keys(sensitivity.body.marking_gradients), ["__proto__", "constructor"]);

      const counterfactual = await post(
        app,
        "/counterfactual",
        '{"input_marking": {"__proto__": 0}, "flip_place": "__proto__", ' +
          '"target_transition": "toString", "search_range": [-5, 5]}',
      );
      equal(counterfactual.status, 200);
      equal(counterfactual.body.flipped_place, "__proto__");

      const anomaly = await post(
        app,
        "/anomaly",
        '{"input_marking": {"__proto__": 1}, "events": [{"name": "to string", ' +
          '"attributes": {"__proto__": "x"}}], "attributes": {"__proto__": 1}}',
      );
      equal(anomaly.status, 200);
      deepEqual(Object.keys(anomaly.body.per_transition_residuals), ["toString"]);

      const badValue = await post(app, "/forward", '{"input_marking": {"__proto__": "x"}}');
      assertValidation(badValue, "float_type", ["body", "input_marking", "__proto__"]);
    },
    {},
    trickyIdsDescription(),
  );

  await withApp(async (app) => {
    const unknown = await post(
      app,
      "/forward",
      '{"input_marking": {"__proto__": 1, "constructor": 1, "toString": 1, "p_in": 0.5}}',
    );
    equal(unknown.status, 400);
    equal(
      unknown.body.detail,
      "input_marking has ids that are not in the net's place set: " +
        "'__proto__', 'constructor', 'toString'",
    );
    const place = await post(app, "/counterfactual", { ...XOR_BASE, flip_place: "__proto__" });
    equal(place.body.detail, "flip_place '__proto__' is not in the net's place set");
    const target = await post(app, "/sensitivity", {
      input_marking: {},
      target_transition: "constructor",
    });
    equal(target.body.detail, "target_transition 'constructor' is not in the net's transition set");
    const values = await post(
      app,
      "/forward",
      '{"input_marking": {}, "input_values": {"toString": 1, "__proto__": 2}}',
    );
    equal(
      values.body.detail,
      "input_values has ids that are not in the net's place set: '__proto__', 'toString'",
    );
  });
});

Deno.test("no CORS, auth or rate limiting: a plain handler", async () => {
  await withApp(async (app) => {
    const options = await app.fetch(
      new Request("http://localhost/forward", {
        method: "OPTIONS",
        headers: { origin: "http://example.com", "access-control-request-method": "POST" },
      }),
    );
    equal(options.status, 405);
    equal(options.headers.get("access-control-allow-origin"), null);
    await options.body?.cancel();
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => get(app, "/healthz")),
    );
    ok(answers.every((a) => a.status === 200));
  });
});

Deno.test("/healthz is {status, version, n_places, n_transitions}", async () => {
  await withApp(async (app) => {
    const { status, body } = await get(app, "/healthz");
    equal(status, 200);
    deepEqual(body, { status: "ok", version: "0.1.0", n_places: 3, n_transitions: 2 });
    deepEqual(Object.keys(body), ["status", "version", "n_places", "n_transitions"]);
  });
});

Deno.test("title, version and description have defaults and show in /openapi.json and /docs", async () => {
  await withApp(async (app) => {
    const { info } = (await get(app, "/openapi.json")).body;
    const { license, contact, ...given } = info;
    deepEqual(given, { title: DEFAULT_TITLE, version: "0.1.0", description: DEFAULT_DESCRIPTION });
    deepEqual([license.identifier, contact.name], ["MIT", "petri-serve authors"]);
    match(DEFAULT_TITLE, /REST API/);
    for (const path of ["/healthz", "/schema", "/forward", "/anomaly", "/counterfactual"]) {
      ok(DEFAULT_DESCRIPTION.includes(path), path);
    }
    ok(DEFAULT_DESCRIPTION.includes("/sensitivity"));
  });
  await withApp(async (app) => {
    const { info } = (await get(app, "/openapi.json")).body;
    deepEqual([info.title, info.version, info.description], ["Loans <beta>", "2.0.0", "Approvals"]);
    equal((await get(app, "/healthz")).body.version, "2.0.0");
    const html = await (await app.fetch(new Request("http://localhost/docs"))).text();
    ok(html.includes("Loans &lt;beta&gt;") && html.includes("2.0.0"));
  }, { title: "Loans <beta>", version: "2.0.0", description: "Approvals" });
  await withApp(async (app) => {
    const { info } = (await get(app, "/openapi.json")).body;
    deepEqual([info.title, info.description], [DEFAULT_TITLE, DEFAULT_DESCRIPTION]);
  }, { title: "", description: "" });
});

Deno.test("a body that has not arrived within the time-out is 408", async () => {
  await withApp(async (app) => {
    const stalled = new ReadableStream<Uint8Array>({
      start: (controller) => controller.enqueue(new TextEncoder().encode('{"input_marking"')),
    });
    const request = new Request("http://localhost/forward", { method: "POST", body: stalled });
    const answer = await decode(await app.fetch(request));
    equal(answer.status, 408);
    equal(answer.body.detail, "The request body did not arrive within 50 ms");
    equal(answer.headers.get("connection"), "close");
    // Let go, not cancelled: the listener ends it once its pending read is done (listen.ts).
    equal(request.body?.locked, false, "the upload is let go");
    equal((await post(app, "/forward", { input_marking: {} })).status, 200);
  }, { bodyTimeoutMs: 50 });
});

Deno.test("a body whose stream breaks before its end is 400, not 500, and closes the connection", async () => {
  await withApp(async (app) => {
    const broken = new ReadableStream<Uint8Array>({
      start: (controller) => {
        controller.enqueue(new TextEncoder().encode('{"input_marking"'));
        controller.error(new Error("connection reset by peer"));
      },
    });
    const answer = await decode(
      await app.fetch(new Request("http://localhost/forward", { method: "POST", body: broken })),
    );
    equal(answer.status, 400);
    equal(
      answer.body.detail,
      "The request body could not be read to its end: the connection failed before it was complete",
    );
    equal(answer.headers.get("connection"), "close");
  });
});

Deno.test("createApp rejects a limit that is not a positive number", async () => {
  await using model = await openModel(xorDescription());
  for (const maxBodyBytes of [0, -1, 1.5, NaN]) {
    await createApp(model, { maxBodyBytes }).then(
      () => ok(false, `maxBodyBytes ${maxBodyBytes} accepted`),
      (error) => match(String(error), /RangeError: maxBodyBytes must be a positive integer/),
    );
  }
  await createApp(model, { bodyTimeoutMs: 0 }).then(
    () => ok(false, "bodyTimeoutMs 0 accepted"),
    (error) => match(String(error), /bodyTimeoutMs must be a positive number, got 0/),
  );
});

Deno.test("concurrent requests get the answers they would get alone", async () => {
  await withApp(async (app) => {
    const bodies = Array.from({ length: 40 }, (_, i) => ({
      path: ["/forward", "/anomaly", "/counterfactual", "/sensitivity"][i % 4]!,
      body: {
        input_marking: { p_in: i / 40 },
        events: [{ name: i % 3 ? "Path A" : "Path B" }],
        flip_place: "p_in",
        target_transition: i % 2 ? "t_a" : "t_b",
      },
    }));
    const alone = [];
    for (const { path, body } of bodies) alone.push((await post(app, path, body)).body);
    const together = await Promise.all(bodies.map(({ path, body }) => post(app, path, body)));
    deepEqual(together.map((a) => a.body), alone);
  });
});

Deno.test("/anomaly on a net with no scorable transition is 200 with score 0 (D10)", async () => {
  const description = xorDescription();
  description.net.labels = { t_a: "p_in->p_a", t_b: "p_in->p_b" };
  await withApp(
    async (app) => {
      const { status, body } = await post(app, "/anomaly", {
        input_marking: { p_in: 0.5 },
        events: [{ name: "p_in->p_a" }],
      });
      equal(status, 200);
      deepEqual(body, { trace_score: 0, per_transition_residuals: {} });
    },
    {},
    description,
  );
});

/** p_plus and p_minus feed t_sum with weights +4 and -4: two huge inputs make ∞ − ∞ = NaN. */
function cancellingDescription() {
  const arcs = [
    { from: "p_minus", to: "t_sum", weight: -4 },
    { from: "p_plus", to: "t_sum", weight: 4 },
    { from: "t_sum", to: "q", weight: 1 },
  ];
  return {
    format: "petri-net-model/1",
    net: {
      places: ["p_minus", "p_plus", "q"],
      transitions: ["t_sum"],
      arcs: arcs.map(({ from, to }) => ({ from, to })),
    },
    parameters: { arc_weights: arcs, transition_thresholds: { t_sum: 0 } },
  };
}

Deno.test("non-finite results are answered as null (D12)", async () => {
  // 3e38 fits float32 (larger inputs are refused), but ±4 × 3e38 overflows it in the graph.
  const input_marking = { p_minus: 3e38, p_plus: 3e38 };
  const clamped = Math.fround(3e38);
  await withApp(
    async (app) => {
      const forward = await post(app, "/forward", { input_marking });
      deepEqual(forward.body, {
        transition_activations: { t_sum: null },
        place_activations: { p_minus: clamped, p_plus: clamped, q: null },
      });
      const anomaly = await post(app, "/anomaly", { input_marking, events: [] });
      deepEqual(anomaly.body, { trace_score: null, per_transition_residuals: { t_sum: null } });
      const sensitivity = await post(app, "/sensitivity", {
        input_marking,
        target_transition: "t_sum",
      });
      deepEqual(sensitivity.body.base_activation, null);
      deepEqual(sensitivity.body.marking_gradients, { p_minus: null, p_plus: null });
    },
    {},
    cancellingDescription(),
  );
});

Deno.test("an unexpected error is logged once and answered with a bare 500 (D15)", async () => {
  const logged: unknown[] = [];
  const model = await openModel(xorDescription());
  const app = await createApp(model, {
    onError: (error, request) =>
      logged.push([error instanceof Error, request.method, new URL(request.url).pathname]),
  });
  // A model whose session was released cannot run: the one failure bad input cannot cause.
  await model[Symbol.asyncDispose]();
  const { status, body, headers } = await post(app, "/forward", { input_marking: {} });
  deepEqual([status, body], [500, { detail: "Internal Server Error" }]);
  equal(headers.get("content-type"), "application/json");
  deepEqual(logged, [[true, "POST", "/forward"]]);
  // Bad input never reaches the model, so it is never a 500.
  equal((await post(app, "/forward", "{")).status, 422);
  equal((await post(app, "/forward", { input_marking: { p_x: 1 } })).status, 400);
  equal(logged.length, 1);
});
