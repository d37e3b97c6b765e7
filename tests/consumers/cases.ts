/**
 * The requests the consumer tests replay and the answers they must match: every `POST` of the
 * four operations recorded in the conformance exchanges of two bundles, sent to the real server
 * (`cli.ts serve BUNDLE` in a subprocess), keeping those it answers 200 with its answer. The
 * bundles are the embedded example (`.onnx`) and a PETRA `.pt` of another net (softmax
 * routing, straight-through firing, silent transitions), so both loaders and every operation
 * are compared.
 *
 * @example
 * ```ts
 * import { serverCases } from "./cases.ts";
 * const cases = await serverCases();
 * cases[0]!.answer; // the server's JSON answer to cases[0]!.body at cases[0]!.path
 * ```
 *
 * @module
 */

import assert from "node:assert/strict";
import { startServerProcess } from "../cli/serve/server_process.ts";

const ROOT = new URL("../../", import.meta.url);

/** A bundle the consumers load: its model file (the sidecar is beside it, `+ ".meta.json"`). */
export interface ReferenceBundle {
  /** The model file's name, as consumers receive it. */
  readonly name: string;
  /** The model file in this repository. */
  readonly file: URL;
  /** The conformance folder whose recorded requests fit its net. */
  readonly exchanges: string;
}

/** The two bundles every consumer runs. */
export const REFERENCE_BUNDLES: readonly ReferenceBundle[] = [
  {
    name: "credit_approval_coloured.onnx",
    file: new URL("examples/credit_approval_coloured/credit_approval_coloured.onnx", ROOT),
    exchanges: "credit_approval_coloured",
  },
  {
    name: "model.pt",
    file: new URL("tests/fixtures/conformance/triage_softmax_ste/model.pt", ROOT),
    exchanges: "triage_softmax_ste",
  },
];

/** The four operations' routes. */
export const OPERATION_PATHS = ["/forward", "/anomaly", "/counterfactual", "/sensitivity"];

/** Requests the README's examples send, asked of the server beside the recorded ones. */
export const README_REQUESTS: readonly { path: string; body: unknown }[] = [
  { path: "/forward", body: { input_marking: { p_submitted: 1 } } },
];

/** One request and the server's answer to it. */
export interface Case {
  /** {@link ReferenceBundle.name} of the bundle it runs on. */
  readonly bundle: string;
  /** The operation's route, e.g. `/forward`. */
  readonly path: string;
  /** The JSON body sent. */
  readonly body: unknown;
  /** The server's JSON answer (status 200). */
  readonly answer: unknown;
}

let cached: Promise<Case[]> | undefined;

/** Every case, asked of the real server once per test module. */
export function serverCases(): Promise<Case[]> {
  return cached ??= askServer();
}

async function askServer(): Promise<Case[]> {
  const cases: Case[] = [];
  for (const bundle of REFERENCE_BUNDLES) {
    const requests = await recordedRequests(bundle.exchanges);
    if (bundle === REFERENCE_BUNDLES[0]) requests.push(...README_REQUESTS);
    await using server = await startServerProcess([
      "run",
      "-A",
      "cli.ts",
      "serve",
      bundle.file.pathname,
      "--port",
      "0",
      "--access-log",
      "off",
    ]);
    for (const { path, body } of requests) {
      const response = await fetch(`${server.origin}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      const answer = await response.json();
      if (response.status === 200) cases.push({ bundle: bundle.name, path, body, answer });
    }
    server.kill("SIGTERM");
    assert.equal((await server.finished()).code, 0);
    for (const path of OPERATION_PATHS) {
      const count = cases.filter((c) => c.bundle === bundle.name && c.path === path).length;
      assert.ok(count > 0, `${bundle.name}: no ${path} request answered 200`);
    }
  }
  return cases;
}

/** The case of `bundle` whose request is `path` with `body`. */
export function findCase(
  cases: readonly Case[],
  bundle: string,
  path: string,
  body: unknown,
): Case {
  const found = cases.find((c) =>
    c.bundle === bundle && c.path === path && JSON.stringify(c.body) === JSON.stringify(body)
  );
  assert.ok(found, `no case ${bundle} ${path} ${JSON.stringify(body)}`);
  return found;
}

/** The recorded `POST` bodies of the four operations in `conformance/NAME/exchanges.jsonl`. */
async function recordedRequests(name: string): Promise<{ path: string; body: unknown }[]> {
  const file = new URL(`tests/fixtures/conformance/${name}/exchanges.jsonl`, ROOT);
  const lines = (await Deno.readTextFile(file)).split("\n").filter((line) => line.trim() !== "");
  return lines.map((line) => JSON.parse(line))
    .filter((e) => e.method === "POST" && OPERATION_PATHS.includes(e.path) && "body" in e)
    .map((e) => ({ path: e.path, body: e.body }));
}

/** The files of a reference bundle: model bytes and sidecar text. */
export async function bundleFiles(
  bundle: ReferenceBundle,
): Promise<{ model: Uint8Array; sidecar: string }> {
  return {
    model: await Deno.readFile(bundle.file),
    sidecar: await Deno.readTextFile(new URL(`${bundle.file.href}.meta.json`)),
  };
}

/**
 * Consumer code that runs every case with the core, as the server does: the request schema
 * validates the body (`parseRequest`), the operation of the table runs it, `stringifyJson`
 * writes the answer. Plain JavaScript, so Node runs it as is and `deno bundle` bundles it for
 * the browser. `readBundle(name)` is the consumer's own way to get a bundle's files
 * (`{ model, sidecar }`); `runCases(ort, cases, readBundle)` resolves to one JSON text per case.
 */
export const RUN_CASES_MODULE =
  `import { loadSchemas, OPERATIONS, openBundle, stringifyJson } from "@petri/serve";

export async function runCases(ort, cases, readBundle) {
  const schemas = await loadSchemas();
  const models = new Map();
  const answers = [];
  for (const { bundle, path, body } of cases) {
    let model = models.get(bundle);
    if (model === undefined) {
      const { model: bytes, sidecar } = await readBundle(bundle);
      const sidecarName = bundle + ".meta.json";
      const files = bundle.endsWith(".pt")
        ? { pt: bytes, sidecar, ptName: bundle, sidecarName }
        : { onnx: bytes, sidecar, onnxName: bundle, sidecarName };
      model = await openBundle(ort, files);
      models.set(bundle, model);
    }
    const operation = OPERATIONS.find((o) => o.path === path);
    const parsed = schemas.parseRequest(operation.name, body);
    if (!parsed.success) throw new Error(path + ": " + JSON.stringify(parsed.issues));
    answers.push(stringifyJson(await operation.run(model, parsed.data)));
  }
  for (const model of models.values()) await model[Symbol.asyncDispose]();
  return answers;
}
`;
