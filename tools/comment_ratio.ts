/**
 * The comment-line ratio of the source: comment-only lines over non-blank lines, per top-level
 * folder and per stage of `core/` (`deno task comments`), or per folder or file given
 * (`deno task comments adapter/deno cli`). A line that holds code and a comment counts as code.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { countLines } from "./comment_ratio.ts";
 * assert.deepEqual(countLines("/** Doc. *\/\nconst a = 1; // why\n\n// note\n"), {
 *   comment: 2,
 *   total: 3,
 * });
 * ```
 *
 * @module
 */

/** Comment-only lines and non-blank lines of one source or group. */
export interface LineCount {
  readonly comment: number;
  readonly total: number;
}

/** One row of the report. */
export interface GroupRatio extends LineCount {
  /** The folder or file, relative to the root (`.` for the root's own files). */
  readonly group: string;
  readonly files: number;
}

/** The extensions counted. */
const SOURCE = /\.(ts|tsx|js|mjs)$/;
/** Folders never counted: generated, installed or hidden. */
const SKIPPED = new Set(["node_modules", "dist", "artifacts"]);

/** Characters after which a `/` starts a regular expression rather than a division. */
const BEFORE_REGEX = new Set([..."(,=:[!&|?{};+-*%<>~^"]);
/** Keywords after which a `/` starts a regular expression. */
const REGEX_KEYWORDS =
  /(?:^|[^\w$])(return|typeof|case|do|else|in|of|new|delete|void|throw|yield|await)$/;

/**
 * Counts the comment-only and the non-blank lines of a TypeScript or JavaScript source.
 * Strings, template literals (with their `${}`) and regular expressions are read as code.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { countLines } from "./comment_ratio.ts";
 * assert.deepEqual(countLines('const url = "http://x"; const re = /\\/\\//;\n'), {
 *   comment: 0,
 *   total: 1,
 * });
 * ```
 */
export function countLines(source: string): LineCount {
  let comment = 0;
  let total = 0;
  let code = false;
  let commented = false;
  const endLine = () => {
    if (code || commented) total++;
    if (commented && !code) comment++;
    code = commented = false;
  };
  // Brace depths at which a `${` of a template literal was opened.
  const templates: number[] = [];
  let depth = 0;
  let previous = ""; // The code before, for telling a regex from a division.
  let i = 0;
  const skipTo = (end: string): void => {
    // Strings and regexes: to the unescaped `end` (a newline ends a broken one).
    for (; i < source.length && source[i] !== end && source[i] !== "\n"; i++) {
      if (source[i] === "\\") i++;
    }
  };
  const template = (): void => {
    for (; i < source.length; i++) {
      const c = source[i];
      if (c === "\n") endLine();
      else code = true;
      if (c === "\\") i++;
      else if (c === "`") return;
      else if (c === "$" && source[i + 1] === "{") {
        templates.push(depth);
        i++;
        return;
      }
    }
  };
  for (; i < source.length; i++) {
    const c = source[i]!;
    const next = source[i + 1];
    if (c === "\n") {
      endLine();
      continue;
    }
    if (/\s/.test(c)) continue;
    if (c === "/" && next === "/") {
      commented = true;
      while (i + 1 < source.length && source[i + 1] !== "\n") i++;
      continue;
    }
    if (c === "/" && next === "*") {
      const end = source.indexOf("*/", i + 2);
      const stop = end < 0 ? source.length : end + 2;
      for (let j = i; j < stop; j++) {
        if (source[j] === "\n") endLine();
        else if (!/\s/.test(source[j]!)) commented = true;
      }
      i = stop - 1;
      continue;
    }
    code = true;
    if (c === `"` || c === "'") {
      i++;
      skipTo(c);
    } else if (c === "`") {
      i++;
      template();
    } else if (c === "/" && startsRegex(previous)) {
      i++;
      for (let inClass = false; i < source.length && source[i] !== "\n"; i++) {
        if (source[i] === "\\") i++;
        else if (source[i] === "[") inClass = true;
        else if (source[i] === "]") inClass = false;
        else if (source[i] === "/" && !inClass) break;
      }
    } else if (c === "{") depth++;
    else if (c === "}") {
      if (templates.at(-1) === depth) {
        templates.pop();
        i++;
        template();
      } else depth--;
    }
    previous = (previous + c).slice(-16);
  }
  endLine();
  return { comment, total };
}

/** Whether a `/` after `previous` (the code before it) starts a regular expression. */
function startsRegex(previous: string): boolean {
  const last = previous.at(-1);
  return last === undefined || BEFORE_REGEX.has(last) || REGEX_KEYWORDS.test(previous);
}

/** The source files under `dir` (a path relative to `root`), sorted. */
export async function sourceFiles(root: URL, dir: string): Promise<string[]> {
  const info = await Deno.stat(new URL(dir, root));
  if (info.isFile) return SOURCE.test(dir) ? [dir] : [];
  const files: string[] = [];
  for await (const entry of Deno.readDir(new URL(`${dir}/`, root))) {
    if (entry.name.startsWith(".") || SKIPPED.has(entry.name)) continue;
    const path = dir === "." ? entry.name : `${dir}/${entry.name}`;
    if (entry.isDirectory) files.push(...await sourceFiles(root, path));
    else if (entry.isFile && SOURCE.test(entry.name)) files.push(path);
  }
  return files.sort();
}

/**
 * The default groups: each top-level folder, each folder of `core/` (its stages) and the
 * files directly in `core/` and in the root.
 */
export async function defaultGroups(root: URL): Promise<Map<string, string[]>> {
  const groups = new Map<string, string[]>();
  for (const file of await sourceFiles(root, ".")) {
    const parts = file.split("/");
    const group = parts.length === 1
      ? "."
      : parts[0] === "core" && parts.length > 2
      ? `core/${parts[1]}`
      : parts[0]!;
    groups.set(group, [...groups.get(group) ?? [], file]);
  }
  return new Map([...groups].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0));
}

/** The ratio of each group of files (paths relative to `root`). */
export async function groupRatios(
  root: URL,
  groups: ReadonlyMap<string, readonly string[]>,
): Promise<GroupRatio[]> {
  const rows: GroupRatio[] = [];
  for (const [group, files] of groups) {
    let comment = 0;
    let total = 0;
    for (const file of files) {
      const count = countLines(await Deno.readTextFile(new URL(file, root)));
      comment += count.comment;
      total += count.total;
    }
    rows.push({ group, files: files.length, comment, total });
  }
  return rows;
}

/** A ratio as a percentage with one decimal. */
export function percent({ comment, total }: LineCount): string {
  return `${total === 0 ? "0.0" : (100 * comment / total).toFixed(1)}%`;
}

if (import.meta.main) {
  const root = new URL("../", import.meta.url);
  const groups = Deno.args.length === 0 ? await defaultGroups(root) : new Map(
    await Promise.all(
      Deno.args.map(async (arg) => {
        const path = arg.replace(/\/+$/, "") || ".";
        return [path, await sourceFiles(root, path)] as const;
      }),
    ),
  );
  const rows = await groupRatios(root, groups);
  const width = Math.max(5, ...rows.map((row) => row.group.length));
  console.log(`${"group".padEnd(width)}  ratio  comment  non-blank  files`);
  for (const row of rows) {
    console.log(
      `${row.group.padEnd(width)}  ${percent(row).padStart(5)}  ${
        String(row.comment).padStart(7)
      }` +
        `  ${String(row.total).padStart(9)}  ${String(row.files).padStart(5)}`,
    );
  }
}
