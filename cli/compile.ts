/**
 * `cli.ts compile MODEL.json [-o OUT.onnx] [--saved-at TIME]`: compiles a `petri-net-model/1`
 * description to a bundle, `OUT.onnx` plus `OUT.onnx.meta.json`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { compileCommand } from "./compile.ts";
 * const dir = await Deno.makeTempDir();
 * const code = await compileCommand.run(
 *   ["examples/rest_serving/rest_serving.model.json", "-o", `${dir}/model.onnx`],
 *   { out: () => {}, err: () => {} },
 * );
 * assert.equal(code, 0);
 * assert.ok((await Deno.stat(`${dir}/model.onnx.meta.json`)).isFile);
 * await Deno.remove(dir, { recursive: true });
 * ```
 *
 * @module
 */

import { compileBundle, type CompiledBundle } from "../core/bundle/mod.ts";
import {
  DescriptionFileError,
  ModelLimitError,
  type PetriModel,
  readDescriptionFile,
} from "../core/net/mod.ts";
import { bundleKind, readPtFiles, writeBundle } from "../adapter/deno/bundle_files.ts";
import { readPtModel } from "../core/pt/mod.ts";
import { parseArgs, UsageError } from "./args.ts";
import { type Command, InputError } from "./command.ts";
import { fileProblem } from "./file_problems.ts";

const OPTIONS = {
  output: { type: "string", short: "o" },
  "saved-at": { type: "string" },
} as const;

const HELP = `Usage: cli.ts compile MODEL.json|MODEL.pt [-o OUT.onnx] [--saved-at TIME]

Compiles a model description (format petri-net-model/1), or a PETRA bundle MODEL.pt with its
sidecar MODEL.pt.meta.json (read without running anything from it), to a bundle: the ONNX
model OUT.onnx and its sidecar OUT.onnx.meta.json.

Options:
  -o, --output OUT.onnx  the .onnx file to write; parent directories are created
                         (default: MODEL.json with .model.json or .json replaced by .onnx,
                         or MODEL.pt with .pt replaced by .onnx)
  --saved-at TIME        the sidecar's saved_at, UTC as YYYY-MM-DDTHH:MM:SSZ (default: the
                         .pt sidecar's saved_at, else now); fix it to make the bundle
                         reproducible
  -h, --help             show this help
`;

/** The `compile` subcommand. */
export const compileCommand: Command = {
  name: "compile",
  summary: "compile MODEL.json or a PETRA MODEL.pt to a bundle OUT.onnx + OUT.onnx.meta.json",
  help: HELP,
  async run(args, io) {
    const { flags, positionals } = parseArgs(args, OPTIONS);
    if (positionals.length !== 1) {
      throw new UsageError(
        positionals.length === 0
          ? "compile needs a MODEL.json argument"
          : `compile takes one MODEL.json argument, got ${positionals.length}`,
      );
    }
    const modelPath = positionals[0]!;
    const output = flags.output ?? defaultOutput(modelPath);
    if (!output.endsWith(".onnx")) {
      throw new UsageError(`the output file must end with .onnx, got '${output}'`);
    }
    const given = flags["saved-at"] === undefined ? undefined : parseTime(flags["saved-at"]);

    const { model, savedAt } = bundleKind(modelPath) === "pt"
      ? readPtModel(await readPtFiles(modelPath))
      : { model: await readModel(modelPath), savedAt: undefined };
    let bundle: CompiledBundle;
    try {
      bundle = await compileBundle(model, { savedAt: given ?? savedAt ?? new Date() });
    } catch (error) {
      if (!(error instanceof ModelLimitError)) throw error;
      throw new InputError(`${modelPath} is over a model limit: ${error.message}`);
    }
    const written = await writeBundle(output, bundle);
    io.err(
      `compiled ${modelPath} -> ${written.onnxPath} + ${written.sidecarPath} ` +
        `(${bundle.forwardNodes} forward nodes, ${bundle.gradientNodes} gradient nodes)`,
    );
    return 0;
  },
};

/** `x.model.json`, `x.json` and `x.pt` become `x.onnx`; any other name gets `.onnx` appended. */
function defaultOutput(modelPath: string): string {
  return modelPath.replace(/((\.model)?\.json|\.pt)$/i, "") + ".onnx";
}

const UTC_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

function parseTime(text: string): Date {
  const date = new Date(text);
  if (!UTC_TIME.test(text) || Number.isNaN(date.getTime())) {
    throw new UsageError(
      `option --saved-at expects a UTC time such as 2026-01-01T00:00:00Z, got '${text}'`,
    );
  }
  return date;
}

/** What `compile` says of a file that is already a bundle. */
const COMPILED_HINTS: Readonly<Record<string, string>> = {
  onnx: "; it is compiled already: serve, inspect or batch it",
  zip: "; a PETRA bundle is read by its name: name it MODEL.pt, its sidecar MODEL.pt.meta.json",
};
/** The largest model description read (64 MiB): above any description within the model limits. */
const MAX_DESCRIPTION_BYTES = 64 * 1024 * 1024;

async function readModel(path: string): Promise<PetriModel> {
  let bytes: Uint8Array;
  try {
    const { size } = await Deno.stat(path);
    if (size > MAX_DESCRIPTION_BYTES) {
      throw new InputError(`${path} is ${size} bytes, over the limit of ${MAX_DESCRIPTION_BYTES}`);
    }
    bytes = await Deno.readFile(path);
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new InputError(`cannot read ${path}: ${fileProblem(error)}`);
  }
  try {
    return readDescriptionFile(bytes, path);
  } catch (error) {
    if (!(error instanceof DescriptionFileError)) throw error;
    throw new InputError(error.message + (COMPILED_HINTS[error.kind] ?? ""));
  }
}
