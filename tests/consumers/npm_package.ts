/**
 * The package as npm sees it from JSR, emulated for the Node consumer test. JSR serves every
 * package to npm clients (`npx jsr add @petri/serve`, registry `npm.jsr.io`) as
 * `@jsr/petri__serve`: each TypeScript module transpiled to a JavaScript module beside it,
 * relative `.ts` specifiers rewritten to `.js`, the `npm:` dependencies the module graph
 * reaches listed in `package.json` for npm to install, `exports` from `deno.json`. This builds
 * that tarball for the core (`.`), the one export meant for Node (`./server` imports its docs
 * assets as text, `./deno` and `./cli` are Deno's), with `deno bundle --inline-imports=false`
 * as the per-module transpiler and `npm pack` to pack it. Not emulated: the `.d.ts` files JSR
 * also generates (the Node consumer is JavaScript).
 *
 * @example
 * ```ts
 * import { packCoreForNpm } from "./npm_package.ts";
 * await using tarball = await packCoreForNpm();
 * tarball.path; // .../jsr-petri__serve-0.1.0.tgz, for `npm install`
 * ```
 *
 * @module
 */

import assert from "node:assert/strict";
import { emptyProject, REPO_DIR, succeeded } from "./consumer_project.ts";
import { packageInfo } from "./readme.ts";

/** The npm name JSR gives a package: `@scope/name` becomes `@jsr/scope__name`. */
export function jsrNpmName(name: string): string {
  const [scope, bare] = name.slice(1).split("/");
  return `@jsr/${scope}__${bare}`;
}

interface InfoModule {
  readonly specifier: string;
}

/** A packed tarball, removed (with its staging directory) by `await using`. */
export interface Tarball extends AsyncDisposable {
  /** The `.tgz` file. */
  readonly path: string;
  /** Its `package.json`. */
  readonly manifest: {
    readonly name: string;
    readonly dependencies: Readonly<Record<string, string>>;
  };
}

/** Builds and packs `@jsr/petri__serve` holding the core (`mod.ts` and what it imports). */
export async function packCoreForNpm(): Promise<Tarball> {
  const { name, version } = await packageInfo();
  const config = JSON.parse(await Deno.readTextFile(`${REPO_DIR}/deno.json`)) as {
    imports: Record<string, string>;
  };
  const info = JSON.parse(succeeded(
    "deno info",
    await run(Deno.execPath(), ["info", "--json", "mod.ts"], REPO_DIR),
  )) as { modules: InfoModule[] };
  const local = info.modules.map((m) => m.specifier)
    .filter((s) => s.startsWith(`file://${REPO_DIR}/`))
    .map((s) => s.slice(`file://${REPO_DIR}/`.length));
  const npm = new Set(
    info.modules.map((m) => m.specifier).filter((s) => s.startsWith("npm:"))
      .map((s) => /^npm:\/?((?:@[^/@]+\/)?[^/@]+)@/.exec(s)![1]!),
  );

  const stage = await emptyProject();
  try {
    succeeded(
      "deno bundle",
      await run(Deno.execPath(), [
        "bundle",
        "--platform",
        "browser",
        "--format",
        "esm",
        "--inline-imports=false",
        "--outdir",
        stage.dir,
        ...local,
      ], REPO_DIR),
    );
    for (const path of local) {
      const js = `${stage.dir}/${path.replace(/\.ts$/, ".js")}`;
      const text = await Deno.readTextFile(js);
      await Deno.writeTextFile(js, text.replace(relativeTs, "$1$2.js$3"));
    }
    const dependencies: Record<string, string> = {};
    for (const pkg of [...npm].sort()) {
      const target = config.imports[pkg] ?? "";
      assert.ok(target.startsWith(`npm:${pkg}@`), `${pkg} is not mapped in deno.json`);
      dependencies[pkg] = target.slice(`npm:${pkg}@`.length);
    }
    const manifest = {
      name: jsrNpmName(name),
      version,
      type: "module",
      exports: { ".": "./mod.js" },
      dependencies,
    };
    await stage.write("package.json", JSON.stringify(manifest, null, 2) + "\n");
    const packed = succeeded("npm pack", await stage.run("npm", ["pack", "--silent"]));
    const file = packed.trim().split("\n").pop()!;
    return {
      path: `${stage.dir}/${file}`,
      manifest,
      [Symbol.asyncDispose]: () => stage[Symbol.asyncDispose](),
    };
  } catch (error) {
    await stage[Symbol.asyncDispose]();
    throw error;
  }
}

/** A relative `.ts` specifier in an import, export or dynamic import. */
const relativeTs = /((?:from|import)\s*\(?\s*["'])(\.{1,2}\/[^"']+)\.ts(["'])/g;

async function run(command: string, args: readonly string[], cwd: string) {
  const output = await new Deno.Command(command, {
    args: [...args],
    cwd,
    stdin: "null",
    env: { NO_COLOR: "1" },
  }).output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: text(output.stdout), stderr: text(output.stderr) };
}
