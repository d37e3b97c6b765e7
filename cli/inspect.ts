/**
 * `cli.ts inspect BUNDLE`: loads a bundle (checking it as `serve` would) and prints a summary
 * of its net, module settings and sidecar.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { inspectCommand } from "./inspect.ts";
 * let text = "";
 * const code = await inspectCommand.run(["examples/rest_serving"], {
 *   out: (chunk) => void (text += chunk),
 *   err: () => {},
 * });
 * assert.equal(code, 0);
 * assert.match(text, /p_application +\(source, initial marking 1\)/);
 * ```
 *
 * @module
 */

import { type Model, modelVersion, type SidecarSpecEntry } from "../core/bundle/mod.ts";
import { quoteId } from "../core/net/mod.ts";
import { terminalText } from "./terminal_text.ts";
import {
  type BundleKind,
  bundleKind,
  bundleLocation,
  readBundle,
  resolveBundlePath,
} from "../adapter/deno/bundle_files.ts";
import { parseArgs, UsageError } from "./args.ts";
import type { Command } from "./command.ts";
import { loadOrt } from "../adapter/deno/ort.ts";

const HELP = `Usage: cli.ts inspect BUNDLE

Checks a bundle and prints a summary: which kind it is (.onnx, PETRA .pt, or a model
description compiled in memory), places and transitions (ids and labels), source places,
evaluation mode, firing, routing, sharpness, guard / inhibitor / duration counts, the
sidecar's scenario and input specs, the ONNX file's SHA-256 and saved_at, and the model's
version as the server reports it (the hash's first 12 hex digits).

Arguments:
  BUNDLE      a .onnx file with its .onnx.meta.json beside it, a PETRA .pt file with its
              .pt.meta.json beside it, a directory holding one bundle of either kind, or a
              model description MODEL.json (compiled in memory, as 'compile' would), or an
              http(s) URL of a bundle file

Options:
  -h, --help  show this help
`;

/** The `inspect` subcommand. */
export const inspectCommand: Command = {
  name: "inspect",
  summary: "check a bundle and print a summary of its net, settings and sidecar",
  help: HELP,
  async run(args, io) {
    const { positionals } = parseArgs(args, {});
    if (positionals.length !== 1) {
      throw new UsageError(
        positionals.length === 0
          ? "inspect needs a BUNDLE argument"
          : `inspect takes one BUNDLE argument, got ${positionals.length}`,
      );
    }
    const location = bundleLocation(positionals[0]!);
    const path = typeof location === "string" ? await resolveBundlePath(location) : location;
    await using model = await readBundle(await loadOrt(), path);
    io.out(describeBundle(typeof path === "string" ? path : path.href, model));
    return 0;
  },
};

const KIND_NAMES: Readonly<Record<BundleKind, string>> = {
  onnx: "petri-serve .onnx",
  pt: "PETRA .pt (read without running it, compiled to ONNX in memory)",
  description: "model description petri-net-model/1 (compiled to ONNX in memory)",
};

/** The summary `inspect` prints; every value is made safe for a terminal. */
export function describeBundle(path: string, model: Model): string {
  const { net, module, structure, sidecar } = model;
  const sources = new Set(structure.sourcePlaces);
  const rows: [string, string][] = [
    ["bundle", path],
    ["kind", KIND_NAMES[bundleKind(path)]],
    ["scenario", sidecar.scenario_name ?? "(none)"],
    ["description", sidecar.scenario_description ?? "(none)"],
    ["places", String(net.places.length)],
    ...net.places.map((p): [string, string] => {
      const notes = [
        ...(sources.has(p) ? ["source"] : []),
        ...(net.initialMarking.has(p) ? [`initial marking ${net.initialMarking.get(p)}`] : []),
      ];
      return ["", notes.length === 0 ? showId(p) : `${showId(p)}  (${notes.join(", ")})`];
    }),
    ["transitions", String(net.transitions.length)],
    ...net.transitions.map((t): [string, string] => {
      const label = net.labels.get(t);
      const silent = net.silentTransitions.includes(t) ? "  (silent)" : "";
      return [
        "",
        `${showId(t)}${label === undefined ? "" : `  ${JSON.stringify(label)}`}${silent}`,
      ];
    }),
    ["source places", structure.sourcePlaces.map(showId).join(", ") || "(none)"],
    [
      "mode",
      module.numSteps === 0
        ? "acyclic (one pass in topological order)"
        : `time-unrolled, ${module.numSteps} step${module.numSteps === 1 ? "" : "s"}`,
    ],
    ["firing", module.firing],
    ["routing", module.routing],
    ["sharpness", String(module.sharpness)],
    ["guards", String(net.structuralGuards.size)],
    ["inhibitor arcs", String(net.inhibitorArcs.length)],
    ["durations", `${net.durations.size} (transitions with a duration other than 1)`],
    ["silent", String(net.silentTransitions.length)],
    ["input marking", describeSpec(sidecar.input_marking_spec)],
    ["input values", describeSpec(sidecar.input_values_spec)],
    ...(sidecar.petra_version === undefined
      ? []
      : [["petra_version", sidecar.petra_version] as [string, string]]),
    ["producer", sidecar.producer],
    ["saved_at", sidecar.saved_at],
    ["onnx_sha256", sidecar.onnx_sha256],
    ["version", `${modelVersion(sidecar.onnx_sha256)} (the version /v2 serves it as)`],
  ];
  const width = Math.max(...rows.map(([key]) => key.length)) + 2;
  // Every value may come from the model: no escape sequence reaches the terminal.
  return rows.map(([key, value]) =>
    (key ? key.padEnd(width) : " ".repeat(width + 2)) + terminalText(value)
  ).join("\n") + "\n";
}

function describeSpec(spec: Readonly<Record<string, SidecarSpecEntry>>): string {
  const entries = Object.entries(spec).map(([place, entry]) =>
    "constant" in entry
      ? `${showId(place)} = constant ${entry.constant}`
      : `${showId(place)} = attribute ${JSON.stringify(entry.attribute)}`
  );
  return entries.join(", ") || "(none)";
}

/** Ids print as they are, unless spaces or control characters would blur the layout. */
function showId(id: string): string {
  return /^[^\s\p{Cc}\p{Cf},=()]+$/u.test(id) ? id : quoteId(id);
}
