/**
 * Names the bundler's chunks after their own content. esbuild's `[name]-[hash]` chunk names
 * hash the input paths too, and Deno keeps npm packages outside the project, so the same
 * sources bundled from `/a/repo` and from `/b/c/repo` got different chunk names (the bytes were
 * the same). {@link stableChunkNames} replaces each esbuild hash with one of the chunk's text
 * (with the chunk names it refers to reduced to their stems) and of the stable names of the
 * chunks it refers to, so a chunk's name still changes whenever what it loads changes.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { stableChunkNames } from "./stable_chunk_names.ts";
 * const renamed = await stableChunkNames(
 *   new Map([
 *     ["main.js", 'import("./lib-AAAAAAAA.js")'],
 *     ["lib-AAAAAAAA.js", "export const x = 1;"],
 *   ]),
 * );
 * const lib = [...renamed.keys()].find((name) => name.startsWith("lib-"))!;
 * assert.match(lib, /^lib-[A-Z2-7]{8}\.js$/);
 * assert.equal(renamed.get("main.js"), `import("./${lib}")`);
 * ```
 *
 * @module
 */

/** esbuild's chunk names: a stem, a dash, eight base-32 characters. */
const HASHED = /^(.+)-[A-Z2-7]{8}\.js$/;

/**
 * Returns the bundle `files` (name → text) with every hashed chunk renamed after its content
 * and every reference to it rewritten. Unhashed files (the entry points) keep their names.
 */
export async function stableChunkNames(
  files: ReadonlyMap<string, string>,
): Promise<Map<string, string>> {
  const esbuildNamed = [...files.keys()].filter((name) => HASHED.test(name));
  const stem = (name: string) => name.replace(HASHED, "$1.js");
  const normalised = (text: string) =>
    esbuildNamed.reduce((out, name) => out.replaceAll(name, stem(name)), text);
  // Visited in an order set by content alone: where chunks load each other in a cycle, the one
  // entered first decides the names, and neither esbuild's path-dependent names nor the order a
  // directory lists its files in may decide that.
  const content = new Map(esbuildNamed.map((name) => [name, normalised(files.get(name)!)]));
  const byContent = (a: string, b: string) => {
    const x = `${stem(a)}\0${content.get(a)}`;
    const y = `${stem(b)}\0${content.get(b)}`;
    return x < y ? -1 : x > y ? 1 : 0;
  };
  const hashed = esbuildNamed.sort(byContent);
  const refersTo = (text: string) => hashed.filter((name) => text.includes(name));

  const stable = new Map<string, string>();
  const inProgress = new Set<string>();
  const stableName = async (name: string): Promise<string> => {
    const known = stable.get(name);
    if (known) return known;
    if (inProgress.has(name)) return stem(name); // a cycle: its own text still counts
    inProgress.add(name);
    const text = files.get(name)!;
    const parts = [content.get(name)!];
    for (const other of refersTo(text)) if (other !== name) parts.push(await stableName(other));
    const renamed = name.replace(HASHED, `$1-${await base32Hash(parts.join("\0"))}.js`);
    stable.set(name, renamed);
    return renamed;
  };
  for (const name of hashed) await stableName(name);

  const out = new Map<string, string>();
  for (const [name, text] of files) {
    const rewritten = hashed.reduce((t, old) => t.replaceAll(old, stable.get(old)!), text);
    out.set(stable.get(name) ?? name, rewritten);
  }
  return out;
}

/**
 * The first 40 bits of the SHA-256 of `content` (text as UTF-8), as eight base-32 characters
 * (A–Z, 2–7): the hash in the chunks' and the `.wasm` files' names.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { base32Hash } from "./stable_chunk_names.ts";
 * assert.match(await base32Hash("abc"), /^[A-Z2-7]{8}$/);
 * assert.equal(await base32Hash("abc"), await base32Hash(new TextEncoder().encode("abc")));
 * ```
 */
export async function base32Hash(content: string | Uint8Array<ArrayBuffer>): Promise<string> {
  const bytes = typeof content === "string" ? new TextEncoder().encode(content) : content;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  let bits = 0n;
  for (const byte of digest.subarray(0, 5)) bits = (bits << 8n) | BigInt(byte);
  let out = "";
  for (let i = 7; i >= 0; i--) out += alphabet[Number((bits >> BigInt(5 * i)) & 31n)];
  return out;
}
