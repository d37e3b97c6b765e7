/**
 * Bundles the playground. `deno task build:web` regenerates the committed build in
 * `web/build/` and the module that imports it as text, `web/build/mod.ts`
 * ({@link writePlaygroundBundle}); `deno task build:web --site DIR` writes a static site instead
 * ({@link buildWeb}), with ORT's `.wasm` files and the example. Chunks and `.wasm` files are
 * named after their content, so they can be cached for good (`immutable`).
 *
 * @module
 */

import { WASM_FILES } from "../web/backends.ts";
import { EXAMPLE_BUNDLE_URL, SIDECAR_SUFFIX } from "../adapter/deno/bundle_files.ts";
import { base32Hash, stableChunkNames } from "./stable_chunk_names.ts";

/** The limit on the site's JavaScript (all chunks, before gzip; the `.wasm` files excluded). */
export const MAX_JS_BYTES = 1024 * 1024;

/** Options of {@link buildWeb}. */
export interface BuildOptions {
  /** Where the site goes; emptied first. Default `dist/web` beside `deno.json`. */
  readonly outDir?: string | URL;
  /** Minify the JavaScript (default true). */
  readonly minify?: boolean;
  /** Where `deno bundle`'s messages go (default: discarded unless it fails). */
  readonly log?: (line: string) => void;
}

/** One file of the built site. */
export interface BuiltFile {
  /** Path relative to the output directory, with `/`. */
  readonly path: string;
  readonly bytes: number;
}

/** What {@link buildWeb} wrote. */
export interface BuiltSite {
  /** The output directory (absolute path). */
  readonly outDir: string;
  readonly files: readonly BuiltFile[];
  /** Total size of the `.js` files. */
  readonly jsBytes: number;
  /** Total size of the `.wasm` files. */
  readonly wasmBytes: number;
}

const ROOT = new URL("../", import.meta.url);
const WEB = new URL("web/", ROOT);
const STATIC_FILES = ["index.html", "style.css"];

/**
 * Builds the site.
 *
 * @throws {Error} when bundling fails, a file is missing, or the JavaScript exceeds
 * {@link MAX_JS_BYTES}.
 *
 * @example
 * ```ts ignore
 * // Not run by `deno task test:doc`: a full site build (tests/web builds and checks one).
 * import assert from "node:assert/strict";
 * import { buildWeb } from "./build_web.ts";
 * const { files } = await buildWeb({ outDir: await Deno.makeTempDir() });
 * assert.ok(files.some((f) => f.path === "ort/ort-wasm-simd-threaded.wasm"));
 * ```
 */
export async function buildWeb(options: BuildOptions = {}): Promise<BuiltSite> {
  const outDir = toPath(options.outDir ?? new URL("dist/web/", ROOT));
  await Deno.remove(outDir, { recursive: true }).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
  await Deno.mkdir(`${outDir}/ort`, { recursive: true });
  await Deno.mkdir(`${outDir}/examples`, { recursive: true });

  await bundle(outDir, options.minify ?? true, options.log);
  for (const name of STATIC_FILES) {
    await Deno.copyFile(new URL(name, WEB), `${outDir}/${name}`);
  }
  for (const [file, hashed] of await hashedWasmNames()) {
    await Deno.copyFile(ortFile(file), `${outDir}/ort/${hashed}`);
  }
  for (const url of [EXAMPLE_BUNDLE_URL, new URL(EXAMPLE_BUNDLE_URL.href + SIDECAR_SUFFIX)]) {
    const name = url.pathname.split("/").pop()!;
    await Deno.copyFile(url, `${outDir}/examples/${name}`);
  }

  const files = await listFiles(outDir);
  const total = (suffix: string) =>
    files.filter((f) => f.path.endsWith(suffix)).reduce((n, f) => n + f.bytes, 0);
  const site = { outDir, files, jsBytes: total(".js"), wasmBytes: total(".wasm") };
  if (site.jsBytes > MAX_JS_BYTES) {
    throw new Error(
      `The playground's JavaScript is ${site.jsBytes} bytes, over the ${MAX_JS_BYTES}-byte limit`,
    );
  }
  return site;
}

/** The suffix of the committed build's files: `main.js` is stored as `main.js.txt`. */
export const STORED_SUFFIX = ".txt";

/** Where the committed build lives. */
export const PLAYGROUND_BUILD_DIR: URL = new URL("web/build/", ROOT);
/** The generated module that imports the committed build's files as text. */
export const PLAYGROUND_BUILD_MODULE: URL = new URL("web/build/mod.ts", ROOT);

/**
 * Bundles `web/main.ts` into `outDir` (emptied first; default `web/build/`), each file stored
 * with the suffix {@link STORED_SUFFIX}, and, for the default directory, regenerates
 * `web/build/mod.ts`. Returns the names the files are served under.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { writePlaygroundBundle } from "./build_web.ts";
 * // Into a temporary directory: the default one is the committed build.
 * const dir = await Deno.makeTempDir();
 * assert.ok((await writePlaygroundBundle(dir)).includes("main.js"));
 * assert.ok((await Deno.stat(`${dir}/main.js.txt`)).isFile);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function writePlaygroundBundle(
  outDir: string | URL = PLAYGROUND_BUILD_DIR,
): Promise<string[]> {
  const dir = toPath(outDir);
  await Deno.remove(dir, { recursive: true }).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
  await Deno.mkdir(dir, { recursive: true });
  await bundle(dir, true);
  const files = await listFiles(dir);
  const names = files.map((f) => f.path);
  const total = files.reduce((n, f) => n + f.bytes, 0);
  // Stored as NAME.txt: deno publish and deno lint would otherwise analyse the minified output
  // as modules of this package (and warn about ORT's dynamic imports in it).
  for (const name of names) await Deno.rename(`${dir}/${name}`, `${dir}/${name}${STORED_SUFFIX}`);
  if (total > MAX_JS_BYTES) {
    throw new Error(
      `The playground's JavaScript is ${total} bytes, over the ${MAX_JS_BYTES}-byte limit`,
    );
  }
  if (toPath(outDir) === toPath(PLAYGROUND_BUILD_DIR)) {
    const module = toPath(PLAYGROUND_BUILD_MODULE);
    await Deno.writeTextFile(module, bundleModule(names, await hashedWasmNames()));
    await new Deno.Command(Deno.execPath(), { args: ["fmt", "--quiet", module] }).output();
  }
  return names;
}

/**
 * ORT's `.wasm` file names (`WASM_FILES`, as the `onnxruntime-web` package has them) and the
 * names the playground loads them under, with the first 40 bits of the file's SHA-256 in
 * base 32: `ort-wasm-simd-threaded.wasm` → `ort-wasm-simd-threaded-ABCDEFGH.wasm`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hashedWasmNames } from "./build_web.ts";
 * const names = await hashedWasmNames();
 * assert.match(names.get("ort-wasm-simd-threaded.wasm")!, /^ort-wasm-simd-threaded-[A-Z2-7]{8}\.wasm$/);
 * ```
 */
export async function hashedWasmNames(): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  for (const file of Object.values(WASM_FILES)) {
    const hash = await base32Hash(await Deno.readFile(ortFile(file)));
    names.set(file, file.replace(/\.wasm$/, `-${hash}.wasm`));
  }
  return names;
}

/** The source of `web/build/mod.ts` for the bundle's file `names` and the `.wasm` names. */
function bundleModule(names: readonly string[], wasm: ReadonlyMap<string, string>): string {
  const entries = names.map((name) =>
    `  [${JSON.stringify(name)}, async () => (await import(${
      JSON.stringify(`./${name}${STORED_SUFFIX}`)
    }, { with: { type: "text" } })).default],`
  );
  return `/**
 * The playground's buildd JavaScript in \`web/build/\` (each file stored as NAME.txt so that
 * \`deno publish\` does not analyse it as a module), imported as text on first use.
 * Generated by \`deno task build:web\` (tools/build_web.ts): do not edit. Text imports
 * keep the files in the module graph, so they are served from a clone, from JSR and from
 * \`deno compile\` alike, with no read permission.
 *
 * @example
 * \`\`\`ts
 * import assert from "node:assert/strict";
 * import { PLAYGROUND_SCRIPTS } from "./mod.ts";
 * const main = await PLAYGROUND_SCRIPTS.get("main.js")!();
 * assert.ok(main.length > 0);
 * \`\`\`
 *
 * @module
 */

/** Each bundled file's text, by file name. */
export const PLAYGROUND_SCRIPTS: ReadonlyMap<string, () => Promise<string>> = new Map([
${entries.join("\n")}
]);

/** ORT's \`.wasm\` files by the content-hashed name the bundle loads them under (under \`ort/\`). */
export const PLAYGROUND_WASM: ReadonlyMap<string, string> = new Map([
${
    [...wasm].map(([file, hashed]) => `  [${JSON.stringify(hashed)}, ${JSON.stringify(file)}],`)
      .join("\n")
  }
]);
`;
}

/** The page's script, its scoring worker's and that one's ORT worker's: shared chunks once. */
const ENTRY_POINTS = ["main.ts", "score_worker.ts", "ort_worker.ts"];

/** Runs `deno bundle` (esbuild) on the entry points with code splitting, for the browser. */
async function bundle(outDir: string, minify: boolean, log?: (line: string) => void) {
  const args = [
    "bundle",
    "--quiet",
    "--config",
    toPath(new URL("deno.browser.json", WEB)),
    "--platform",
    "browser",
    "--format",
    "esm",
    "--code-splitting",
    ...(minify ? ["--minify"] : []),
    "--outdir",
    outDir,
    ...ENTRY_POINTS.map((name) => toPath(new URL(name, WEB))),
  ];
  const output = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: toPath(ROOT),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
  if (!output.success) {
    throw new Error(`Cannot bundle the playground: deno bundle failed\n${text.trim()}`);
  }
  for (const line of text.split("\n")) if (line.trim()) log?.(line);
  try {
    await Deno.stat(`${outDir}/main.js`);
  } catch {
    throw new Error(`Cannot bundle the playground: deno bundle wrote no ${outDir}/main.js`);
  }
  await loadWasmByHashedNames(outDir);
  await renameChunksByContent(outDir);
}

/**
 * Rewrites every quoted `.wasm` name of `WASM_FILES` in the bundled files to its hashed name,
 * before the chunks are named after their content.
 */
async function loadWasmByHashedNames(outDir: string) {
  const names = await hashedWasmNames();
  for await (const entry of Deno.readDir(outDir)) {
    if (!entry.isFile || !entry.name.endsWith(".js")) continue;
    const path = `${outDir}/${entry.name}`;
    const text = await Deno.readTextFile(path);
    let rewritten = text;
    for (const [file, hashed] of names) {
      for (const quote of [`"`, "'", "`"]) {
        rewritten = rewritten.replaceAll(`${quote}${file}${quote}`, `${quote}${hashed}${quote}`);
      }
    }
    if (rewritten !== text) await Deno.writeTextFile(path, rewritten);
  }
}

/** Gives the chunks in `outDir` names that depend on their bytes only, not on where we are. */
async function renameChunksByContent(outDir: string) {
  const files = new Map<string, string>();
  for await (const entry of Deno.readDir(outDir)) {
    if (entry.isFile && entry.name.endsWith(".js")) {
      files.set(entry.name, await Deno.readTextFile(`${outDir}/${entry.name}`));
    }
  }
  for (const name of files.keys()) await Deno.remove(`${outDir}/${name}`);
  for (const [name, text] of await stableChunkNames(files)) {
    await Deno.writeTextFile(`${outDir}/${name}`, text);
  }
}

/** A file of the onnxruntime-web package, wherever Deno keeps npm packages. */
function ortFile(name: string): URL {
  const url = new URL(import.meta.resolve(`onnxruntime-web/${name}`));
  if (url.protocol !== "file:") {
    throw new Error(`Cannot find onnxruntime-web's ${name}: it resolves to ${url.href}`);
  }
  return url;
}

async function listFiles(dir: string, prefix = ""): Promise<BuiltFile[]> {
  const files: BuiltFile[] = [];
  for await (const entry of Deno.readDir(`${dir}/${prefix}`)) {
    const path = prefix + entry.name;
    if (entry.isDirectory) files.push(...await listFiles(dir, `${path}/`));
    else files.push({ path, bytes: (await Deno.stat(`${dir}/${path}`)).size });
  }
  return files.sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
}

function toPath(path: string | URL): string {
  if (typeof path === "string") return path.replace(/\/+$/, "") || "/";
  return decodeURIComponent(path.pathname).replace(/\/+$/, "") || "/";
}

function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

if (import.meta.main) {
  const at = Deno.args.indexOf("--site");
  if (at < 0) {
    const names = await writePlaygroundBundle();
    console.log(`${toPath(PLAYGROUND_BUILD_DIR)}: ${names.join(", ")}`);
    console.log(`${toPath(PLAYGROUND_BUILD_MODULE)}: regenerated`);
    Deno.exit(0);
  }
  const outDir = Deno.args[at + 1] ?? "dist/web";
  const site = await buildWeb({ outDir, log: (line) => console.error(line) });
  const width = Math.max(...site.files.map((f) => f.path.length));
  for (const file of site.files) console.log(`${file.path.padEnd(width)}  ${kib(file.bytes)}`);
  console.log(
    `\n${site.outDir}: JavaScript ${kib(site.jsBytes)} (limit ${kib(MAX_JS_BYTES)}), ` +
      `wasm ${kib(site.wasmBytes)}`,
  );
}
