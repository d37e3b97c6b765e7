/**
 * Reading Deno's "Ignored build scripts" boxes: the npm packages whose install scripts it did
 * not run, as it names them on stderr.
 *
 * @example
 * ```ts
 * import { ignoredScripts } from "./ignored_scripts.ts";
 * ignoredScripts("Download https://registry.npmjs.org/zod\n"); // []
 * ```
 *
 * @module
 */

/** The packages an "Ignored build scripts" box on `stderr` names, e.g. `npm:protobufjs@7.6.6`. */
export function ignoredScripts(stderr: string): string[] {
  const names: string[] = [];
  for (const box of stderr.split("Ignored build scripts for packages:").slice(1)) {
    for (const line of box.split("\n").slice(1)) {
      const name = /npm:\S+/.exec(line)?.[0];
      if (name === undefined) break;
      names.push(name);
    }
  }
  return names.sort();
}
