/**
 * Which model a server serves, from the sidecar (`scenario_name`, `onnx_sha256`, `saved_at`,
 * the version from the hash, else `"1"`), for `/v2/models/{name}`, the build-info metric and `/`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { modelIdentity } from "./model_identity.ts";
 * const sidecar = {
 *   scenario_name: "loans",
 *   onnx_sha256: "ab".repeat(32),
 *   saved_at: "2026-11-21T13:06:09Z",
 * };
 * assert.deepEqual(modelIdentity(sidecar, "loans"), {
 *   name: "loans",
 *   version: "abababababab",
 *   scenario: "loans",
 *   sha256: "ab".repeat(32),
 *   savedAt: "2026-11-21T13:06:09Z",
 * });
 * ```
 *
 * @module
 */

import { modelVersion, type Sidecar } from "../../core/bundle/mod.ts";

/** A served model's identity. */
export interface ModelIdentity {
  /** The model's name under `/v2/models/`. */
  readonly name: string;
  /** The version it is served as. */
  readonly version: string;
  /** The sidecar's `scenario_name`, or `null`. */
  readonly scenario: string | null;
  /** The SHA-256 of the ONNX file (64 hex digits), or `null` without a sidecar. */
  readonly sha256: string | null;
  /** When the bundle was compiled (`YYYY-MM-DDTHH:MM:SSZ`), or `null`. */
  readonly savedAt: string | null;
}

/** The identity of a bundle with `sidecar`, served as `name`. */
export function modelIdentity(
  sidecar: Readonly<Partial<Record<keyof Sidecar, unknown>>>,
  name: string,
): ModelIdentity {
  const text = (key: keyof Sidecar) => {
    const value = sidecar[key];
    return typeof value === "string" && value !== "" ? value : null;
  };
  const sha256 = text("onnx_sha256");
  const valid = sha256 !== null && /^[0-9a-fA-F]{64}$/.test(sha256);
  return {
    name,
    version: valid ? modelVersion(sha256) : "1",
    scenario: text("scenario_name"),
    sha256: valid ? sha256.toLowerCase() : null,
    savedAt: text("saved_at"),
  };
}

/**
 * The identity as the protocol's model metadata `parameters` (`scenario`, `onnx_sha256`,
 * `saved_at`; those that are known), or `undefined` when none is.
 */
export function identityParameters(
  identity: ModelIdentity,
): Record<string, string> | undefined {
  const entries = Object.entries({
    scenario: identity.scenario,
    onnx_sha256: identity.sha256,
    saved_at: identity.savedAt,
  }).filter((entry): entry is [string, string] => entry[1] !== null);
  return entries.length === 0 ? undefined : Object.fromEntries(entries);
}

/**
 * The `petri_serve_build_info` gauge (always 1, the labels carry the information): the
 * server's `version`, the served `model` (its name under `/v2/models/`) and its
 * `model_sha256`, so dashboards and alerts can tell which build serves which model.
 */
export function buildInfoMetric(serverVersion: string, identity: ModelIdentity): string {
  const label = (value: string) =>
    `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`;
  return "# HELP petri_serve_build_info The server's version and the served model; always 1.\n" +
    "# TYPE petri_serve_build_info gauge\n" +
    `petri_serve_build_info{version=${label(serverVersion)},model=${label(identity.name)},` +
    `model_sha256=${label(identity.sha256 ?? "")}} 1\n`;
}
