/**
 * Combining pieces of Prometheus text (format 0.0.4) into one valid exposition: each family
 * (its `# HELP`, `# TYPE` and samples) once, with the samples of every piece that has it, and a
 * label added to every sample of a piece ({@link withLabel}). `/metrics` is made of the
 * server's own metrics, the build info, the process metrics and, under
 * `deno serve --parallel`, the other instances' metrics (`./instances.ts`).
 *
 * The pieces are this server's own output: one family per `# HELP`/`# TYPE` pair, its samples
 * right after it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { mergeExpositions, withLabel } from "./exposition.ts";
 * const a = "# HELP x_total X.\n# TYPE x_total counter\nx_total{route=\"/a\"} 1\n";
 * const merged = mergeExpositions([withLabel(a, "instance_id", "i1"), withLabel(a, "instance_id", "i2")]);
 * assert.equal(
 *   merged,
 *   "# HELP x_total X.\n# TYPE x_total counter\n" +
 *     'x_total{instance_id="i1",route="/a"} 1\nx_total{instance_id="i2",route="/a"} 1\n',
 * );
 * ```
 *
 * @module
 */

/** One metric family: its comment lines and its sample lines. */
interface Family {
  readonly comments: string[];
  readonly samples: string[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;

/** `text` with `name="value"` added first to the labels of every sample line. */
export function withLabel(text: string, name: string, value: string): string {
  const label = `${name}="${
    value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")
  }"`;
  return text.split("\n").map((line) => {
    if (line === "" || line.startsWith("#")) return line;
    const metric = NAME.exec(line)?.[0] ?? "";
    const rest = line.slice(metric.length);
    return rest.startsWith("{")
      ? `${metric}{${label}${rest.startsWith("{}") ? rest.slice(1) : `,${rest.slice(1)}`}`
      : `${metric}{${label}}${rest}`;
  }).join("\n");
}

/** `text` with only the families `keep` accepts (by name). */
export function selectFamilies(text: string, keep: (family: string) => boolean): string {
  return render([...parse(text)].filter(([name]) => keep(name)).map(([, family]) => family));
}

/**
 * One exposition with every family of `pieces` once; a family's comments come from the first
 * piece that has it, its samples from all of them in order (a sample line repeated verbatim is
 * kept once).
 */
export function mergeExpositions(pieces: readonly string[]): string {
  const merged = new Map<string, Family>();
  for (const piece of pieces) {
    for (const [name, family] of parse(piece)) {
      const known = merged.get(name);
      if (known === undefined) {
        merged.set(name, { comments: family.comments, samples: [...family.samples] });
        continue;
      }
      const seen = new Set(known.samples);
      for (const sample of family.samples) if (!seen.has(sample)) known.samples.push(sample);
    }
  }
  return render([...merged.values()]);
}

function render(families: readonly Family[]): string {
  const lines = families.flatMap((family) => [...family.comments, ...family.samples]);
  return lines.length === 0 ? "" : lines.join("\n") + "\n";
}

function parse(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  let current: Family | undefined;
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const comment = /^# (HELP|TYPE) (\S+)/.exec(line);
    if (comment) {
      const name = comment[2]!;
      current = families.get(name);
      if (current === undefined) families.set(name, current = { comments: [], samples: [] });
      current.comments.push(line);
      continue;
    }
    if (line.startsWith("#")) continue;
    if (current === undefined) {
      // A sample before any comment: a family of its own, by its metric name.
      const name = NAME.exec(line)?.[0] ?? line;
      families.set(name, current = { comments: [], samples: [] });
    }
    current.samples.push(line);
  }
  return families;
}
