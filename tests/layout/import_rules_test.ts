/**
 * The layout's import rules, checked on the parsed source of every tracked module (Deno's own
 * parser through `Deno.lint.runPlugin`, so comments and strings cannot fool it):
 *
 * - `core/` imports only `core/` and the npm packages of `core/deno.browser.json`; no `node:`,
 *   no `Deno.*`.
 * - The layers: `core/` <- `server/` <- `adapter/deno/` <- `cli/`; an arrow never points up.
 * - `server/` imports only `server/` and `core/` and uses no `Deno.*`: it stays runtime-free.
 * - `server/` is in rooms, one folder each, entered through its `mod.ts`: `http/` (conventions),
 *   `metrics/`, `pipeline/`, then `oip/`, `log_scoring/` and `openapi/` side by side. A room
 *   imports another only through its `mod.ts`, and only a room listed before its own; nothing
 *   outside `server/` (tests and benchmarks aside) reaches past a room's `mod.ts`; only
 *   `server/`'s own top-level modules (`mod.ts`, `app.ts`, the composition root) import rooms.
 * - `adapter/deno/`, the Deno edges (of the server too: its `deno serve` entry `main.ts`),
 *   imports only `adapter/deno/`, `server/`, `core/`, the example bundle in `examples/` and the
 *   playground's built files in `web/` (`web/build/`, the page and its stylesheet); never
 *   `cli/` or `tools/`.
 * - `web/` imports only `web/` and `core/` and the npm packages of `web/deno.browser.json`; no
 *   `node:`, no `Deno.*`.
 * - `cli/` and `cli.ts` reach the core directly or through `adapter/deno/`, never through
 *   `server/`; only `cli/serve.ts`, which serves, imports `server/`.
 * - `tools/` (build and maintenance scripts) is imported by no product module: only by `tools/`
 *   and `tests/`.
 * - `mod.ts`, the package's `.` entry point, re-exports only `core/`, each stage through its entry
 *   `core/<stage>/mod.ts`, and uses no `Deno.*`: a browser app or a Node script importing it gets
 *   no server, no docs UI and no Deno edge.
 * - `core/` is stages, each a folder with its entry `mod.ts`; no module lies loose in `core/`.
 * - Outside `core/` (tests aside), a module reaches a stage only through its entry
 *   `core/<stage>/mod.ts`, or the ORT worker's own entry `core/runtime/worker/mod.ts` (whose
 *   importers the next rule names). The playground keeps the deep imports of
 *   {@link PLAYGROUND_DEEP}, each measured on its bundle.
 * - `core/runtime/` is reached through its entry, `core/runtime/mod.ts`: the server and the rest
 *   see one served-model session; `core/ops/` reaches it only through the runner and the packed
 *   layout (`core/runtime/codec.ts`); only the faces' worker entries and ORT loaders
 *   (`adapter/deno/`, `web/`) import `core/runtime/worker/mod.ts`.
 * - `core/ops/` never imports `core/schemas/`: the schemas are built from the operations table,
 *   not the reverse. `server/`, `cli/` and `adapter/` reach the schemas through their entry,
 *   `core/schemas/mod.ts` (the playground builds its lean set from the parts, `web/schemas.ts`).
 * - No module anywhere names an `npm:`, `jsr:` or URL specifier inline: `deno.json` maps them.
 *   No dynamic import is computed, except `adapter/deno/native_ort.ts`'s of onnxruntime-node.
 *
 * @module
 */

import assert from "node:assert/strict";
import { trackedFiles } from "./standalone.ts";

const ROOT = new URL("../../", import.meta.url);

/** What one module refers to: import specifiers (static, dynamic, re-export, type) and `Deno.*`. */
interface ModuleRefs {
  readonly specifiers: string[];
  /** Dynamic imports whose specifier is computed, so no rule can check them. */
  readonly computed: number;
  /** Lines (1-based) that reach the `Deno` global. */
  readonly denoLines: number[];
}

/** Parses `source` and lists what it imports and where it touches `Deno`. */
function moduleRefs(path: string, source: string): ModuleRefs {
  const specifiers: string[] = [];
  const denoOffsets: number[] = [];
  let computed = 0;
  const literal = (node: { type: string; value?: unknown } | null | undefined) => {
    if (node?.type === "Literal" && typeof node.value === "string") specifiers.push(node.value);
  };
  const plugin: Deno.lint.Plugin = {
    name: "layout",
    rules: {
      refs: {
        create() {
          return {
            ImportDeclaration: (node) => literal(node.source),
            ExportAllDeclaration: (node) => literal(node.source),
            ExportNamedDeclaration: (node) => literal(node.source),
            ImportExpression(node) {
              if (node.source.type === "Literal") literal(node.source);
              else computed++;
            },
            TSImportType(node) {
              if (node.argument.type === "TSLiteralType") literal(node.argument.literal);
            },
            TSExternalModuleReference: (node) => literal(node.expression),
            MemberExpression(node) {
              const { object } = node;
              const viaGlobal = object.type === "MemberExpression" &&
                object.object.type === "Identifier" && object.object.name === "globalThis" &&
                object.property.type === "Identifier" && object.property.name === "Deno";
              if ((object.type === "Identifier" && object.name === "Deno") || viaGlobal) {
                denoOffsets.push(node.range[0]);
              }
            },
          };
        },
      },
    },
  };
  Deno.lint.runPlugin(plugin, path, source);
  const lineOf = (offset: number) => source.slice(0, offset).split("\n").length;
  return { specifiers, computed, denoLines: [...new Set(denoOffsets.map(lineOf))] };
}

/** A specifier's target as a repository path (`core/x.ts`), or the bare/scheme specifier. */
function target(from: string, specifier: string): string {
  if (!specifier.startsWith("./") && !specifier.startsWith("../")) return specifier;
  const url = new URL(specifier, new URL(from, ROOT));
  return url.href.slice(ROOT.href.length);
}

const inside = (path: string, folder: string) => path.startsWith(`${folder}/`);
/** A stage's entry: `core/<stage>/mod.ts`. */
const STAGE_ENTRY = /^core\/[a-z_]+\/mod\.ts$/;
const isRelative = (specifier: string) => specifier.startsWith(".");

async function importMap(path: string): Promise<Set<string>> {
  const config = JSON.parse(await Deno.readTextFile(new URL(path, ROOT))) as {
    imports: Record<string, string>;
  };
  return new Set(Object.keys(config.imports));
}

/** The module a worker thread starts from: a second entry of `core/runtime/`. */
const WORKER_ENTRY = "core/runtime/worker/mod.ts";

/**
 * The stage modules `web/` imports past their entry, and why: through the entry, the page's
 * bundle would grow.
 */
const PLAYGROUND_DEEP: Readonly<Record<string, string>> = {
  "core/event_log/format.ts": "the entry loads every log reader (papaparse, saxes) with the page",
  "core/schemas/define.ts": "the entry's loadSchemas adds zod's full build to the bundle",
  "core/schemas/parse.ts": "the entry's loadSchemas adds zod's full build to the bundle",
};

/** `server/`'s rooms, each with its level: a room imports only rooms of a lower level. */
const SERVER_ROOMS: Readonly<Record<string, number>> = {
  http: 0,
  metrics: 1,
  pipeline: 2,
  oip: 3,
  log_scoring: 3,
  openapi: 3,
};

/** The room of `server/` that holds `path`, if any. */
function serverRoom(path: string): string | undefined {
  const match = /^server\/([^/]+)\//.exec(path);
  return match && Object.hasOwn(SERVER_ROOMS, match[1]!) ? match[1] : undefined;
}

/** One rule: which files it governs and what each of their references may be. */
interface Rule {
  readonly name: string;
  readonly governs: (path: string) => boolean;
  /** Returns why `to` is refused, or undefined when it is allowed. */
  readonly refuse: (path: string, specifier: string, to: string) => string | undefined;
  readonly denoAllowed: (path: string) => boolean;
}

/** A bare specifier is a package the given browser import map knows (subpaths included). */
const mapped = (map: Set<string>, specifier: string) =>
  map.has(specifier) || [...map].some((name) => specifier.startsWith(`${name}/`));

async function rules(): Promise<Rule[]> {
  const coreMap = await importMap("core/deno.browser.json");
  const webMap = await importMap("web/deno.browser.json");
  const onlyFolders =
    (folders: string[], map?: Set<string>) =>
    (_path: string, specifier: string, to: string): string | undefined => {
      if (isRelative(specifier)) {
        return folders.some((f) => inside(to, f)) ? undefined : `reaches ${to}`;
      }
      if (map === undefined) return undefined;
      return mapped(map, specifier) ? undefined : `imports ${specifier}, not in its browser map`;
    };
  return [
    {
      name: "core/ is self-contained and runtime-free",
      governs: (p) => inside(p, "core"),
      refuse: onlyFolders(["core"], coreMap),
      denoAllowed: () => false,
    },
    {
      name: "server/ imports only server/ and core/",
      governs: (p) => inside(p, "server"),
      refuse: (path, specifier, to) => {
        if (specifier.startsWith("node:")) return `imports ${specifier}`;
        return onlyFolders(["server", "core"])(path, specifier, to);
      },
      denoAllowed: () => false,
    },
    {
      name: "adapter/deno/ imports only adapter/deno/, server/, core/ and the built playground",
      governs: (p) => inside(p, "adapter/deno"),
      refuse: (path, specifier, to) => {
        const playground = inside(to, "web/build") || /^web\/[^/]+\.(html|css)$/.test(to);
        if (playground) return undefined;
        return onlyFolders(["adapter/deno", "server", "core", "examples"])(path, specifier, to);
      },
      denoAllowed: () => true,
    },
    {
      name: "server/'s rooms are entered through their mod.ts, lower rooms only",
      governs: (p) => !inside(p, "tests") && !inside(p, "bench"),
      refuse: (path, specifier, to) => {
        const toRoom = serverRoom(to);
        if (!isRelative(specifier) || toRoom === undefined) {
          return inside(path, "server") && serverRoom(path) !== undefined &&
              isRelative(specifier) && /^server\/[^/]+$/.test(to)
            ? `reaches ${to}, above its room`
            : undefined;
        }
        const fromRoom = serverRoom(path);
        if (fromRoom === toRoom) return undefined;
        if (to !== `server/${toRoom}/mod.ts`) return `reaches ${to}, not its room's mod.ts`;
        if (fromRoom === undefined) return undefined;
        return SERVER_ROOMS[toRoom]! < SERVER_ROOMS[fromRoom]!
          ? undefined
          : `reaches ${to}, a room not below ${fromRoom}/`;
      },
      denoAllowed: () => true,
    },
    {
      name: "web/ is browser code",
      governs: (p) => inside(p, "web"),
      refuse: onlyFolders(["web", "core"], webMap),
      denoAllowed: () => false,
    },
    {
      name: "the CLI reaches the core without the HTTP face (cli/serve.ts excepted)",
      governs: (p) => inside(p, "cli") || p === "cli.ts",
      refuse: (path, specifier, to) =>
        isRelative(specifier) && inside(to, "server") && path !== "cli/serve.ts"
          ? `reaches ${to}`
          : undefined,
      denoAllowed: () => true,
    },
    {
      name: "no product module imports tools/",
      governs: (p) => !inside(p, "tools") && !inside(p, "tests"),
      refuse: (_path, specifier, to) =>
        isRelative(specifier) && inside(to, "tools") ? `reaches ${to}` : undefined,
      denoAllowed: () => true,
    },
    {
      name:
        "mod.ts, the environment-agnostic entry point, reaches only the entries of core/'s stages",
      governs: (p) => p === "mod.ts",
      refuse: (path, specifier, to) =>
        onlyFolders(["core"], coreMap)(path, specifier, to) ??
          (isRelative(specifier) && !STAGE_ENTRY.test(to)
            ? `reaches ${to}, not a stage's entry`
            : undefined),
      denoAllowed: () => false,
    },
    {
      name: "the runtime is reached through its entry; ops only through the runner's layout",
      governs: (p) => !inside(p, "core/runtime") && !inside(p, "tests") && !inside(p, "bench"),
      refuse: (path, specifier, to) => {
        if (!isRelative(specifier) || !inside(to, "core/runtime")) return undefined;
        if (to === "core/runtime/mod.ts" && !inside(path, "core/ops")) return undefined;
        if (to === "core/runtime/codec.ts" && inside(path, "core/ops")) return undefined;
        const face = inside(path, "adapter/deno") || inside(path, "web");
        if (to === "core/runtime/worker/mod.ts" && face) return undefined;
        return `reaches ${to}`;
      },
      denoAllowed: () => true,
    },
    {
      name: "the schemas build on the operations, and the faces reach them through their entry",
      governs: (p) =>
        inside(p, "core/ops") || inside(p, "server") || inside(p, "cli") || inside(p, "adapter"),
      refuse: (path, specifier, to) => {
        if (!isRelative(specifier) || !inside(to, "core/schemas")) return undefined;
        if (inside(path, "core/ops")) return `reaches ${to}: ops must not depend on the schemas`;
        return to === "core/schemas/mod.ts" ? undefined : `reaches ${to}, not core/schemas/mod.ts`;
      },
      denoAllowed: () => true,
    },
    {
      name: "outside core/, a stage is reached through its entry mod.ts",
      governs: (p) => !inside(p, "core") && !inside(p, "tests"),
      refuse: (path, specifier, to) => {
        if (!isRelative(specifier) || !inside(to, "core")) return undefined;
        if (STAGE_ENTRY.test(to) || to === WORKER_ENTRY) return undefined;
        if (inside(path, "web") && Object.hasOwn(PLAYGROUND_DEEP, to)) return undefined;
        return `reaches ${to}, not its stage's mod.ts`;
      },
      denoAllowed: () => true,
    },
    {
      name: "no inline npm:, jsr: or URL specifiers",
      governs: (p) => !inside(p, "tests") && !inside(p, "bench"),
      refuse: (_path, specifier) =>
        /^(npm|jsr|https?):/.test(specifier) ? `names ${specifier} inline` : undefined,
      denoAllowed: () => true,
    },
  ];
}

/**
 * The one module allowed a computed dynamic import: it imports onnxruntime-node by a pinned
 * `npm:` specifier Deno's module graph cannot see, so that no default run installs it
 * (`tests/layout/native_package_test.ts` checks it stays out of deno.json and deno.lock).
 */
const COMPUTED_IMPORTERS = new Set(["adapter/deno/native_ort.ts"]);

async function sources(): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const path of await trackedFiles(ROOT)) {
    if (!/\.(ts|tsx|js|mjs)$/.test(path) || inside(path, "tests/fixtures")) continue;
    files.set(path, await Deno.readTextFile(new URL(path, ROOT)));
  }
  return files;
}

Deno.test("moduleRefs() reads static, dynamic, re-export and type imports, not comments", () => {
  const source = [
    `// import "./commented.ts"; Deno.exit(1)`,
    `/* export * from "./block.ts" */`,
    `import type { A } from "./a.ts";`,
    `import b from "./b.ts";`,
    `export * from "./c.ts";`,
    `export { d } from "./d.ts";`,
    `const s = "import('./string.ts') Deno.env";`,
    `type E = import("./e.ts").E;`,
    `const f = await import("./f.ts");`,
    `const g = await import(b.name);`,
    `const h = globalThis.Deno.env;`,
    `Deno.exit(0);`,
  ].join("\n");
  assert.deepEqual(moduleRefs("x.ts", source), {
    specifiers: ["./a.ts", "./b.ts", "./c.ts", "./d.ts", "./e.ts", "./f.ts"],
    computed: 1,
    denoLines: [11, 12],
  });
});

Deno.test("every tracked module keeps the layout's import rules", async (t) => {
  const files = await sources();
  const all = await rules();
  const governed = new Map<string, number>(all.map((r) => [r.name, 0]));
  for (const rule of all) {
    await t.step(rule.name, () => {
      const broken: string[] = [];
      for (const [path, source] of files) {
        if (!rule.governs(path)) continue;
        const refs = moduleRefs(path, source);
        governed.set(rule.name, governed.get(rule.name)! + refs.specifiers.length);
        for (const specifier of refs.specifiers) {
          const why = rule.refuse(path, specifier, target(path, specifier));
          if (why !== undefined) broken.push(`${path}: ${why}`);
        }
        if (refs.computed > 0 && !COMPUTED_IMPORTERS.has(path)) {
          broken.push(`${path}: a computed dynamic import cannot be checked`);
        }
        if (!rule.denoAllowed(path) && refs.denoLines.length > 0) {
          broken.push(`${path}: uses Deno.* on line ${refs.denoLines.join(", ")}`);
        }
      }
      assert.deepEqual(broken, []);
      // A rule that saw no import at all would pass for the wrong reason.
      assert.ok(governed.get(rule.name)! > 0, `${rule.name}: no imports seen`);
    });
  }
});

Deno.test("the rules refuse what the layout forbids", async () => {
  const [core, server, adapter, rooms, web, cli, tools, entry, runtime, schemas, stages] =
    await rules();
  assert.match(core!.refuse("core/a.ts", "../server/app.ts", "server/app.ts") ?? "", /reaches/);
  assert.match(core!.refuse("core/a.ts", "node:fs", "node:fs") ?? "", /browser map/);
  assert.match(
    server!.refuse("server/app.ts", "../adapter/deno/ort.ts", "adapter/deno/ort.ts") ?? "",
    /reaches/,
  );
  assert.equal(server!.denoAllowed("server/main.ts"), false);
  assert.equal(
    adapter!.refuse("adapter/deno/main.ts", "../../server/mod.ts", "server/mod.ts"),
    undefined,
  );
  assert.match(
    adapter!.refuse("adapter/deno/a.ts", "../../cli/args.ts", "cli/args.ts") ?? "",
    /reaches/,
  );
  assert.match(
    adapter!.refuse("adapter/deno/a.ts", "../../web/main.ts", "web/main.ts") ?? "",
    /reaches/,
  );
  assert.equal(
    adapter!.refuse("adapter/deno/a.ts", "../../web/build/mod.ts", "web/build/mod.ts"),
    undefined,
  );
  assert.equal(
    adapter!.refuse("adapter/deno/a.ts", "../../web/index.html", "web/index.html"),
    undefined,
  );
  assert.match(
    tools!.refuse("cli/a.ts", "../tools/build_web.ts", "tools/build_web.ts") ?? "",
    /reaches/,
  );
  assert.equal(tools!.governs("tests/tools/build_web_test.ts"), false);
  assert.match(server!.refuse("server/app.ts", "../web/x.ts", "web/x.ts") ?? "", /reaches/);
  assert.match(web!.refuse("web/a.ts", "swagger-ui-dist", "swagger-ui-dist") ?? "", /browser map/);
  assert.match(
    cli!.refuse("cli/batch/mod.ts", "../server/mod.ts", "server/mod.ts") ?? "",
    /reaches/,
  );
  assert.equal(cli!.refuse("cli/serve.ts", "../server/mod.ts", "server/mod.ts"), undefined);
  assert.equal(web!.denoAllowed("web/main.ts"), false);
  assert.match(entry!.refuse("mod.ts", "./server/mod.ts", "server/mod.ts") ?? "", /reaches/);
  assert.match(
    entry!.refuse("mod.ts", "./adapter/deno/ort.ts", "adapter/deno/ort.ts") ?? "",
    /reaches/,
  );
  assert.equal(entry!.governs("server/mod.ts"), false);
  assert.match(
    entry!.refuse("mod.ts", "./core/ops/forward.ts", "core/ops/forward.ts") ?? "",
    /not a stage's entry/,
  );
  assert.equal(entry!.refuse("mod.ts", "./core/ops/mod.ts", "core/ops/mod.ts"), undefined);
  assert.match(
    entry!.refuse("mod.ts", "./core/runtime/worker/mod.ts", "core/runtime/worker/mod.ts") ?? "",
    /not a stage's entry/,
  );
  const parse = (from: string, to: string) => schemas!.refuse(from, "../x.ts", to);
  assert.match(parse("core/ops/operation.ts", "core/schemas/mod.ts") ?? "", /must not depend/);
  assert.match(parse("server/app.ts", "core/schemas/parse.ts") ?? "", /not core\/schemas\/mod.ts/);
  assert.equal(parse("server/app.ts", "core/schemas/mod.ts"), undefined);
  assert.equal(parse("core/schemas/define.ts", "core/ops/operations.ts"), undefined);
  const enter = (from: string, to: string) => rooms!.refuse(from, "../x.ts", to);
  assert.equal(enter("server/pipeline/steps.ts", "server/http/mod.ts"), undefined);
  assert.equal(enter("server/pipeline/steps.ts", "server/pipeline/context.ts"), undefined);
  assert.match(enter("server/pipeline/steps.ts", "server/http/cors.ts") ?? "", /mod\.ts/);
  assert.match(enter("server/http/cors.ts", "server/pipeline/mod.ts") ?? "", /not below/);
  assert.match(enter("server/oip/routes.ts", "server/log_scoring/mod.ts") ?? "", /not below/);
  assert.match(enter("server/openapi/document.ts", "server/oip/mod.ts") ?? "", /not below/);
  assert.match(enter("server/http/json.ts", "server/app.ts") ?? "", /above its room/);
  assert.match(enter("cli/serve.ts", "server/pipeline/body.ts") ?? "", /mod\.ts/);
  assert.equal(enter("cli/serve.ts", "server/pipeline/mod.ts"), undefined);
  assert.equal(enter("server/app.ts", "server/openapi/mod.ts"), undefined);
  assert.equal(rooms!.governs("tests/server/json_test.ts"), false);
  const reach = (from: string, to: string) => runtime!.refuse(from, "../x.ts", to);
  assert.match(reach("server/app.ts", "core/runtime/scheduler.ts") ?? "", /reaches/);
  assert.match(reach("core/ops/forward.ts", "core/runtime/session.ts") ?? "", /reaches/);
  assert.match(reach("core/ops/forward.ts", "core/runtime/mod.ts") ?? "", /reaches/);
  assert.match(reach("server/app.ts", "core/runtime/worker/mod.ts") ?? "", /reaches/);
  assert.equal(reach("server/app.ts", "core/runtime/mod.ts"), undefined);
  assert.equal(reach("core/ops/forward.ts", "core/runtime/codec.ts"), undefined);
  assert.equal(reach("adapter/deno/ort.ts", "core/runtime/worker/mod.ts"), undefined);
  const stage = (from: string, to: string) => stages!.refuse(from, "../x.ts", to);
  assert.match(stage("server/app.ts", "core/ops/forward.ts") ?? "", /not its stage's mod\.ts/);
  assert.match(stage("cli/batch/mod.ts", "core/event_log/csv/rows.ts") ?? "", /mod\.ts/);
  assert.match(stage("bench/wide_net.ts", "core/net/types.ts") ?? "", /mod\.ts/);
  assert.match(stage("mod.ts", "core/bundle/sidecar.ts") ?? "", /mod\.ts/);
  assert.match(stage("web/log_view.ts", "core/event_log/read.ts") ?? "", /mod\.ts/);
  assert.match(stage("server/app.ts", "core/schemas/parse.ts") ?? "", /mod\.ts/);
  assert.equal(stage("web/main.ts", "core/schemas/parse.ts"), undefined);
  assert.equal(stage("server/app.ts", "core/ops/mod.ts"), undefined);
  assert.equal(stage("adapter/deno/ort.ts", "core/runtime/worker/mod.ts"), undefined);
  assert.equal(stages!.governs("tests/core/ops/forward_test.ts"), false);
  assert.equal(stages!.governs("core/pt/open_bundle.ts"), false);
});

Deno.test("core/ is stages, each with its entry mod.ts, and tests/core/ mirrors them", async () => {
  const tracked = await trackedFiles(ROOT);
  const core = tracked.filter((path) => inside(path, "core") && path.endsWith(".ts"));
  const folderOf = (path: string) => path.split("/").length > 3 ? path.split("/")[2]! : undefined;
  const stages = new Set(core.map((path) => path.split("/")[1]!).filter((p) => !p.endsWith(".ts")));
  // No module lies loose in core/, and every stage has its entry.
  assert.deepEqual(core.filter((path) => path.split("/").length === 2), []);
  assert.deepEqual([...stages].filter((stage) => !core.includes(`core/${stage}/mod.ts`)), []);
  // A test folder of tests/core/ is named after the stage it tests.
  const testFolders = new Set(
    tracked.filter((path) => inside(path, "tests/core")).map(folderOf).filter((f) =>
      f !== undefined
    ),
  );
  assert.deepEqual([...testFolders].filter((folder) => !stages.has(folder)), []);
});
