/**
 * The README's library section as the consumer tests use it: its code blocks, each file by
 * the `title` on its fence (`title="service.ts"` after the language), and its `deno add` lines
 * turned into the `imports` that `deno add` writes (JSR itself is not reached: the consumer
 * projects link this checkout instead, see `consumer_project.ts`).
 *
 * @example
 * ```ts
 * import { readmeFile } from "./readme.ts";
 * const service = await readmeFile("service.ts"); // the block's text, as written
 * ```
 *
 * @module
 */

import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);

/** A fenced code block of the library section. */
export interface CodeBlock {
  /** The fence's language (`ts`, `sh`, ...). */
  readonly lang: string;
  /** The fence's `title="..."`, when it has one. */
  readonly title?: string;
  /** The block's text, ending with a newline. */
  readonly code: string;
}

/** The package's name and version, from `deno.json`. */
export async function packageInfo(): Promise<{ name: string; version: string }> {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  return { name: config.name, version: config.version };
}

/** The text of the README's `## Using it as a library` section. */
export async function librarySection(): Promise<string> {
  const text = await Deno.readTextFile(new URL("README.md", ROOT));
  const start = text.indexOf("\n## Using it as a library\n");
  assert.ok(start >= 0, "README.md has no '## Using it as a library' section");
  const end = text.indexOf("\n## ", start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

/** The fenced code blocks of `markdown`, in order. */
export function codeBlocks(markdown: string): CodeBlock[] {
  return [...markdown.matchAll(/^```(\w+)([^\n]*)\n([\s\S]*?)^```$/gm)].map((m) => {
    const title = /title="([^"]+)"/.exec(m[2]!)?.[1];
    return { lang: m[1]!, code: m[3]!, ...(title === undefined ? {} : { title }) };
  });
}

/** The library section's block titled `title`, verbatim. */
export async function readmeFile(title: string): Promise<string> {
  const blocks = codeBlocks(await librarySection()).filter((b) => b.title === title);
  assert.equal(blocks.length, 1, `README.md's library section has ${blocks.length} '${title}'`);
  return blocks[0]!.code;
}

/** The commands of the library section's `sh` blocks that start with `prefix`. */
export async function readmeCommands(prefix: string): Promise<string[]> {
  return codeBlocks(await librarySection())
    .filter((b) => b.lang === "sh")
    .flatMap((b) => b.code.split("\n"))
    .filter((line) => line.startsWith(prefix));
}

/**
 * What `deno add SPEC...` writes into `deno.json`'s `imports`: `jsr:NAME` as
 * `jsr:NAME@^VERSION` (this package's version), `npm:NAME@VERSION` as given.
 *
 * @example
 * ```ts
 * import { denoAddImports } from "./readme.ts";
 * await denoAddImports("deno add jsr:@petri/serve npm:onnxruntime-web@1.30.0");
 * // { "@petri/serve": "jsr:@petri/serve@^0.1.0", "onnxruntime-web": "npm:onnxruntime-web@1.30.0" }
 * ```
 */
export async function denoAddImports(command: string): Promise<Record<string, string>> {
  const [deno, add, ...specs] = command.trim().split(/\s+/);
  assert.equal(`${deno} ${add}`, "deno add", command);
  const { name, version } = await packageInfo();
  const imports: Record<string, string> = {};
  for (const spec of specs) {
    if (spec === `jsr:${name}`) {
      imports[name] = `jsr:${name}@^${version}`;
      continue;
    }
    const npm = /^npm:((?:@[^/@]+\/)?[^@]+)@(\d[^ ]*)$/.exec(spec);
    assert.ok(npm, `${command}: '${spec}' is neither jsr:${name} nor a pinned npm: package`);
    imports[npm[1]!] = spec;
  }
  return imports;
}

/**
 * The files the browser recipe says to serve, by their path on the site: the backquoted names
 * of its `Serve these files` paragraph, those of onnxruntime-web's `dist/` (`ort-…`) under
 * `/ort/`.
 *
 * @example
 * ```ts
 * import { browserSiteFiles } from "./readme.ts";
 * await browserSiteFiles(); // ["/index.html", "/app.js", ..., "/ort/ort-wasm-simd-threaded.jsep.wasm"]
 * ```
 */
export async function browserSiteFiles(): Promise<string[]> {
  const section = await librarySection();
  const start = section.indexOf("\nServe these files");
  assert.ok(start >= 0, "README.md's browser recipe has no 'Serve these files' paragraph");
  const paragraph = section.slice(start + 1, section.indexOf("\n\n", start + 1));
  const names = [...paragraph.matchAll(/`([^`/]+\.[a-z]+)`/g)].map((m) => m[1]!);
  return names.map((name) => name.startsWith("ort-") ? `/ort/${name}` : `/${name}`);
}
