/**
 * Builds the playground into a self-contained static site (`deno task build:web`, default
 * output `dist/web/`): `main.js` and its chunks bundled by `deno bundle` (esbuild) from
 * `web/main.ts`, one chunk per ONNX Runtime backend; `index.html` and `style.css`; ORT's two
 * `.wasm` files under `ort/`, copied from the `onnxruntime-web` npm package; and the example
 * bundle under `examples/`. Any static host can serve the directory. The bundled JavaScript
 * must stay under {@link MAX_JS_BYTES}.
 *
 * @example
 * ```ts ignore
 * // Not run by `deno task test:doc`: a full build takes a while (tests/web builds the site).
 * import { buildWeb } from "./build_web.ts";
 * const site = await buildWeb({ outDir: "dist/web" });
 * site.jsBytes < 1024 * 1024; // true
 * ```
 *
 * @module
 */

import { WASM_FILES } from "../../web/backends.ts";

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

const ROOT = new URL("../../", import.meta.url);
const WEB = new URL("web/", ROOT);
const EXAMPLE = new URL("examples/credit_approval_coloured/credit_approval_coloured.onnx", ROOT);
const STATIC_FILES = ["index.html", "style.css"];

/**
 * Builds the site.
 *
 * @throws {Error} when bundling fails, a file is missing, or the JavaScript exceeds
 * {@link MAX_JS_BYTES}.
 *
 * @example
 * ```ts ignore
 * import { buildWeb } from "./build_web.ts";
 * const { outDir, files } = await buildWeb({ outDir: await Deno.makeTempDir() });
 * files.some((f) => f.path === "ort/ort-wasm-simd-threaded.wasm"); // true
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
  for (const file of Object.values(WASM_FILES)) {
    await Deno.copyFile(ortFile(file), `${outDir}/ort/${file}`);
  }
  for (const url of [EXAMPLE, new URL(EXAMPLE.href + ".meta.json")]) {
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

/** Runs `deno bundle` (esbuild) on web/main.ts with code splitting, for the browser. */
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
    toPath(new URL("main.ts", WEB)),
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
  const site = await buildWeb({ log: (line) => console.error(line) });
  const width = Math.max(...site.files.map((f) => f.path.length));
  for (const file of site.files) console.log(`${file.path.padEnd(width)}  ${kib(file.bytes)}`);
  console.log(
    `\n${site.outDir}: JavaScript ${kib(site.jsBytes)} (limit ${kib(MAX_JS_BYTES)}), ` +
      `wasm ${kib(site.wasmBytes)}`,
  );
}
