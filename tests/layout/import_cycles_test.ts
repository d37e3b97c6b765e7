/**
 * No module of the package imports itself back: the module graph of every export in
 * `deno.json` (from `deno info --json`, static, dynamic and type imports alike) has no cycle
 * among the package's own files. A cycle is a module in the wrong room: the leaf that owns
 * shared types (such as `core/ops/zod_types.ts`) belongs below both of its users. One level up,
 * `core/`'s stages import each other without a cycle either: they form a DAG, so each stage can
 * be read knowing only the stages below it.
 *
 * @module
 */

import assert from "node:assert/strict";
import { denoInfo } from "../module_graph.ts";
import { trackedFiles } from "./standalone.ts";

const ROOT = new URL("../../", import.meta.url);

interface InfoModule {
  readonly specifier: string;
  readonly dependencies?: readonly {
    readonly code?: { readonly specifier?: string };
    readonly type?: { readonly specifier?: string };
  }[];
}

/** The package's own modules reachable from `entry`, each with the own modules it imports. */
async function ownGraph(entry: string): Promise<Map<string, string[]>> {
  const info = await denoInfo<{ modules: InfoModule[] }>(entry);
  const own = (specifier: string | undefined) =>
    specifier !== undefined && specifier.startsWith(ROOT.href);
  const graph = new Map<string, string[]>();
  for (const module of info.modules) {
    if (!own(module.specifier)) continue;
    const targets = (module.dependencies ?? []).flatMap((
      d,
    ) => [d.code?.specifier, d.type?.specifier])
      .filter(own) as string[];
    graph.set(module.specifier.slice(ROOT.href.length), [
      ...new Set(targets.map((t) => t.slice(ROOT.href.length))),
    ]);
  }
  return graph;
}

/** The strongly connected components with more than one module, or a module importing itself. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's algorithm, iterative so that a deep graph cannot overflow the stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; edge: number }[] = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const target = edges[frame.edge++]!;
        if (!index.has(target)) {
          index.set(target, next);
          low.set(target, next++);
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, edge: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.node);
      if (component.length > 1 || edges.includes(frame.node)) found.push(component.sort());
    }
  }
  return found;
}

Deno.test("cycles() finds a loop of imports and nothing in a tree", () => {
  const loop = new Map([["a.ts", ["b.ts"]], ["b.ts", ["c.ts"]], ["c.ts", ["a.ts", "d.ts"]], [
    "d.ts",
    [],
  ]]);
  assert.deepEqual(cycles(loop), [["a.ts", "b.ts", "c.ts"]]);
  assert.deepEqual(cycles(new Map([["a.ts", ["b.ts", "c.ts"]], ["b.ts", ["c.ts"]]])), []);
  assert.deepEqual(cycles(new Map([["a.ts", ["a.ts"]]])), [["a.ts"]]);
});

Deno.test("no export's module graph has an import cycle among the package's files", async (t) => {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT))) as {
    exports: Record<string, string>;
  };
  for (const [name, path] of Object.entries(config.exports)) {
    await t.step(name, async () => {
      const graph = await ownGraph(path);
      assert.ok(graph.size > 1, `${path}: no module graph`);
      assert.deepEqual(cycles(graph), []);
    });
  }
});

/** The module graph folded to `core/`'s stages: stage -> the other stages its modules import. */
function stageGraph(graph: ReadonlyMap<string, readonly string[]>): Map<string, string[]> {
  const stageOf = (path: string) => /^core\/([^/]+)\//.exec(path)?.[1];
  const stages = new Map<string, Set<string>>();
  for (const [from, targets] of graph) {
    const stage = stageOf(from);
    if (stage === undefined) continue;
    const edges = stages.get(stage) ?? stages.set(stage, new Set()).get(stage)!;
    for (const to of targets.map(stageOf)) if (to !== undefined && to !== stage) edges.add(to);
  }
  return new Map([...stages].map(([stage, edges]) => [stage, [...edges].sort()]));
}

Deno.test("stageGraph() folds modules to stages, so a loop between two stages is a cycle", () => {
  const graph = stageGraph(
    new Map([
      ["core/pt/open.ts", ["core/bundle/load.ts", "core/pt/read.ts"]],
      ["core/bundle/load.ts", ["core/pt/read.ts", "core/net/types.ts"]],
      ["server/app.ts", ["core/pt/open.ts"]],
    ]),
  );
  assert.deepEqual(graph.get("pt"), ["bundle"]);
  assert.deepEqual(cycles(graph), [["bundle", "pt"]]);
});

Deno.test("core/'s stages import each other without a cycle", async () => {
  // Every module of core/ is reached from some entry: the stages' and their inner folders'.
  const entries = (await trackedFiles(ROOT)).filter((path) => /^core\/.+\/mod\.ts$/.test(path));
  const graph = new Map<string, string[]>();
  for (const entry of entries) {
    for (const [from, targets] of await ownGraph(entry)) graph.set(from, targets);
  }
  const stages = stageGraph(graph);
  assert.ok(stages.size > 5, "no stages found");
  assert.deepEqual(cycles(stages), []);
});
