import assert from "node:assert/strict";
import { countLines, defaultGroups, groupRatios, percent } from "../../tools/comment_ratio.ts";

/** A sample whose comment-only lines are marked `C` and code lines `K` at their end. */
const SAMPLE = [
  "/**", // C
  " * A module doc.", // C
  " */", // C
  "", // blank
  'import { a } from "./a.ts"; // K: code, then a comment',
  "const url = 'http://example.com/x'; // K",
  'const s = "/* not a comment */"; // K',
  "const re = /\\/\\/[\"']/g; // K: a regex with slashes and quotes",
  "const half = a / 2; // K: a division",
  "const t = `line one", // K: template literal, first line
  "// not a comment: inside the template", // K
  "${a /* a comment in code */} ${`nested ${a}`}`;", // K
  "    ", // blank
  "  // indented line comment", // C
  "/* block */ const after = 1;", // K
  "const before = 1; /* block", // K
  "   that goes on */", // C
  "function f() {", // K
  "  return /}/.test(s); // K: a regex holding a brace",
  "}", // K
].join("\n");

Deno.test("countLines counts comment-only and non-blank lines of a known sample", () => {
  const marks = SAMPLE.split("\n").map((line) => line.trim() === "" ? "" : line);
  assert.equal(marks.filter((line) => line !== "").length, 18);
  assert.deepEqual(countLines(SAMPLE), { comment: 5, total: 18 });
  assert.deepEqual(countLines(""), { comment: 0, total: 0 });
  assert.equal(percent({ comment: 5, total: 18 }), "27.8%");
});

Deno.test("the default groups are the top-level folders, core/'s stages and the root", async () => {
  const dir = await Deno.makeTempDir({ prefix: "petri-ratio-" });
  try {
    const write = async (path: string, text: string) => {
      await Deno.mkdir(`${dir}/${path.split("/").slice(0, -1).join("/")}`, { recursive: true });
      await Deno.writeTextFile(`${dir}/${path}`, text);
    };
    await write("mod.ts", "// c\nexport {};\n");
    await write("core/version.ts", "export const V = 1;\n");
    await write("core/net/a.ts", "// c\n// c\nexport const A = 1;\n");
    await write("core/net/deep/b.ts", "export const B = 1;\n");
    await write("cli/x.ts", "/** c */\nexport const X = 1;\n");
    await write("cli/notes.md", "# not source\n");
    await write("node_modules/y.ts", "// skipped\n");
    const root = new URL(`file://${dir}/`);
    const rows = await groupRatios(root, await defaultGroups(root));
    assert.deepEqual(rows, [
      { group: ".", files: 1, comment: 1, total: 2 },
      { group: "cli", files: 1, comment: 1, total: 2 },
      { group: "core", files: 1, comment: 0, total: 1 },
      { group: "core/net", files: 2, comment: 2, total: 4 },
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
