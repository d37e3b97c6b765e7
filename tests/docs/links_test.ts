/**
 * Every relative link in `README.md` and `docs/*.md` resolves: its path is a file git tracks,
 * its `#anchor` (when it has one) is a heading of the target page, and the path is not left
 * out of the JSR package by `deno.json`'s `publish.exclude` (JSR renders the README from the
 * package, so a link into `tests/` or `bench/` would be dead there). Absolute URLs are not
 * fetched: the tests run offline.
 *
 * @module
 */

import assert from "node:assert/strict";
import { trackedFiles } from "../layout/standalone.ts";

const ROOT = new URL("../../", import.meta.url);

/** One link found in a page. */
interface Link {
  readonly page: string;
  readonly line: number;
  readonly target: string;
}

Deno.test("every relative link in README.md and docs/ resolves to a published, tracked file", async (t) => {
  const tracked = new Set(await trackedFiles(ROOT));
  const excluded = await publishExcludes();
  const pages = [...tracked].filter((path) =>
    path === "README.md" || /^docs\/[^/]+\.md$/.test(path)
  ).sort();
  assert.ok(pages.includes("README.md"));
  assert.ok(pages.some((page) => page.startsWith("docs/")), "no docs/*.md page is tracked");

  for (const page of pages) {
    await t.step(page, async () => {
      const text = await Deno.readTextFile(new URL(page, ROOT));
      const problems: string[] = [];
      for (const link of relativeLinks(page, text)) {
        const problem = await checkLink(link, tracked, excluded);
        if (problem !== undefined) {
          problems.push(`${page}:${link.line}: ${link.target}: ${problem}`);
        }
      }
      assert.deepEqual(problems, []);
    });
  }
});

Deno.test("relativeLinks() skips code and absolute URLs, and slugs follow GitHub's rule", () => {
  const text = [
    "See [a](docs/a.md#one-two) and [b](https://example.com/x) and `[c](nope.md)`.",
    "```sh",
    "[d](also-not-a-link.md)",
    "```",
    "[e](#local) ![img](docs/x.png)",
  ].join("\n");
  assert.deepEqual(relativeLinks("README.md", text).map((l) => [l.line, l.target]), [
    [1, "docs/a.md#one-two"],
    [5, "#local"],
    [5, "docs/x.png"],
  ]);
  assert.deepEqual(
    headingSlugs("# One, two: `three`\n## Where it differs (D1–D3)\n## Limits\n## Limits\n"),
    new Set(["one-two-three", "where-it-differs-d1d3", "limits", "limits-1"]),
  );
});

/** What is wrong with a link, or `undefined` when it resolves. */
async function checkLink(
  link: Link,
  tracked: ReadonlySet<string>,
  excluded: readonly string[],
): Promise<string | undefined> {
  const [pathPart, anchor] = splitAnchor(link.target);
  const path = pathPart === "" ? link.page : resolvePath(link.page, decodeURI(pathPart));
  if (path === undefined) return "points outside the repository";
  if (!tracked.has(path)) return `${path} is not a tracked file`;
  const exclusion = excluded.find((rule) =>
    rule.endsWith("/") ? path.startsWith(rule) : path === rule
  );
  if (exclusion !== undefined) return `${path} is excluded from the JSR package (${exclusion})`;
  if (anchor === undefined) return undefined;
  if (!path.endsWith(".md")) return `an anchor on ${path}, which is not a Markdown page`;
  const slugs = headingSlugs(await Deno.readTextFile(new URL(path, ROOT)));
  return slugs.has(anchor) ? undefined : `${path} has no heading for #${anchor}`;
}

function splitAnchor(target: string): [string, string | undefined] {
  const hash = target.indexOf("#");
  return hash < 0 ? [target, undefined] : [target.slice(0, hash), target.slice(hash + 1)];
}

/** `target` resolved against the page's folder, as a repository path; undefined above the root. */
function resolvePath(page: string, target: string): string | undefined {
  const parts = page.split("/").slice(0, -1);
  for (const part of target.replace(/\/$/, "").split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else parts.push(part);
  }
  return parts.join("/");
}

/** The relative link targets of a Markdown page, outside code blocks and code spans. */
function relativeLinks(page: string, text: string): Link[] {
  const links: Link[] = [];
  let fenced = false;
  text.split("\n").forEach((raw, i) => {
    if (/^\s*(```|~~~)/.test(raw)) {
      fenced = !fenced;
      return;
    }
    if (fenced) return;
    const line = raw.replace(/`[^`]*`/g, "");
    for (const match of line.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      links.push({ page, line: i + 1, target });
    }
  });
  return links;
}

/** The anchors GitHub (and JSR) give a page's headings: lower case, punctuation dropped. */
function headingSlugs(text: string): Set<string> {
  const slugs = new Set<string>();
  const counts = new Map<string, number>();
  let fenced = false;
  for (const line of text.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : line.match(/^#{1,6}\s+(.*?)\s*#*\s*$/);
    if (!heading) continue;
    const base = heading[1]!
      .replace(/`/g, "")
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const seen = counts.get(base) ?? 0;
    counts.set(base, seen + 1);
    slugs.add(seen === 0 ? base : `${base}-${seen}`);
  }
  return slugs;
}

/** `deno.json`'s `publish.exclude`, each a folder (ending in `/`) or a file. */
async function publishExcludes(): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  const rules: unknown = config.publish?.exclude ?? [];
  assert.ok(Array.isArray(rules));
  return rules.map((rule) => String(rule).replace(/^\.\//, ""));
}
