/**
 * The OpenAPI document, as `cli.ts serve` serves it (the playground mounted), under the two
 * linters API teams run: Redocly's `recommended` rules (`@redocly/cli`) and Spectral's `oas`
 * ruleset (`@stoplight/spectral-cli`), each at an exact version, run with Deno from npm (the
 * first run downloads them). No errors; the only warnings are the justified ones below.
 *
 * @module
 */

import assert from "node:assert/strict";
import { readBundle } from "../../../adapter/deno/bundle_files.ts";
import { ORT } from "../../ort.ts";
import { PLAYGROUND_PREFIX, playgroundHandler } from "../../../adapter/deno/serve_static.ts";
import { createApp } from "../../../server/app.ts";

const REDOCLY = "npm:@redocly/cli@2.77.0";
const SPECTRAL = "npm:@stoplight/spectral-cli@6.16.3";

/**
 * Redocly's `operation-4xx-response` asks every operation for a 4XX answer. These `GET`s take
 * no parameter, query or body, so no client error can come from them (a wrong method gets 405
 * with `Allow`, which belongs to the path, not to this operation): the warning is justified.
 */
const NO_CLIENT_ERROR = [
  "/healthz",
  "/schema",
  "/readyz",
  "/metrics",
  "/",
  "/favicon.ico",
  "/openapi.json",
  "/docs",
  "/redoc",
  "/v2/health/live",
  "/v2/health/ready",
  "/v2",
];

/** Runs a linter from npm outside the repository (no deno.json, no lock file of ours). */
async function lint(args: string[], cwd: string): Promise<{ code: number; stdout: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-config", "--no-lock", ...args],
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  if (stdout.trim() === "") {
    throw new Error(`${args[0]} printed nothing: ${new TextDecoder().decode(output.stderr)}`);
  }
  return { code: output.code, stdout };
}

Deno.test("the OpenAPI document is clean under Redocly's recommended and Spectral's oas rules", async () => {
  await using model = await readBundle(ORT, "examples/credit_approval_coloured");
  const app = await createApp(model, {
    title: model.sidecar.scenario_name!,
    description: model.sidecar.scenario_description!,
    mount: [PLAYGROUND_PREFIX, playgroundHandler()],
  });
  const document = await (await app.fetch(new Request("http://localhost/openapi.json"))).json();
  const dir = await Deno.makeTempDir({ prefix: "petri_openapi_" });
  try {
    await Deno.writeTextFile(`${dir}/openapi.json`, JSON.stringify(document));

    const redocly = await lint(
      [REDOCLY, "lint", "--extends", "recommended", "--format", "json", "openapi.json"],
      dir,
    );
    const problems = JSON.parse(redocly.stdout).problems as {
      ruleId: string;
      severity: string;
      location: { pointer: string }[];
      message: string;
    }[];
    const errors = problems.filter((p) => p.severity === "error");
    assert.deepEqual(errors.map((p) => `${p.ruleId} ${p.location[0]?.pointer}`), []);
    const warnings = problems.map((p) => `${p.ruleId} ${p.location[0]?.pointer}`).sort();
    const pointer = (path: string) => `#/paths/${path.replaceAll("/", "~1")}/get/responses`;
    assert.deepEqual(
      warnings,
      NO_CLIENT_ERROR.map((path) => `operation-4xx-response ${pointer(path)}`).sort(),
    );

    await Deno.writeTextFile(`${dir}/.spectral.json`, '{"extends":["spectral:oas"]}');
    const spectral = await lint(
      [SPECTRAL, "lint", "--ruleset", ".spectral.json", "--format", "json", "openapi.json"],
      dir,
    );
    // The JSON array, then (when it is empty) a line saying so.
    const { stdout } = spectral;
    const results = JSON.parse(stdout.slice(stdout.indexOf("["), stdout.lastIndexOf("]") + 1)) as {
      code: string;
      severity: number;
      path: string[];
    }[];
    assert.deepEqual(results.map((r) => `${r.code} ${r.path.join("/")}`), [], "no finding");
    assert.equal(spectral.code, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
