/**
 * Every shell, YAML and Dockerfile block of `docs/` and `README.md` works as written, as far as
 * this machine can tell without a container runtime or a cluster:
 *
 * - shell blocks parse (`bash -n`);
 * - YAML blocks parse with a strict YAML 1.2 parser (`yaml`, no error or warning, no duplicate
 *   key), and each Kubernetes object in them is valid against the Kubernetes OpenAPI schemas
 *   (`kubernetes-models`); a container with a memory limit that runs `serve` gives V8 a heap
 *   limit of at most three quarters of it;
 * - the Dockerfile of `docs/deployment.md` is the repository's `Dockerfile`; every path it copies
 *   is in the build context of a clone (less what `.dockerignore` leaves out), and so is every
 *   file the modules it caches load; its heap limit agrees with the memory the page runs it
 *   with; the image that adds a model copies only the model's directory, which the user brings.
 *
 * @module
 */

import assert from "node:assert/strict";
import { parseAllDocuments } from "yaml";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { Job } from "kubernetes-models/batch/v1/Job";
import { Service } from "kubernetes-models/v1/Service";
import { ConfigMap } from "kubernetes-models/v1/ConfigMap";
import { PersistentVolumeClaim } from "kubernetes-models/v1/PersistentVolumeClaim";
import { moduleGraph, trackedFiles } from "../module_graph.ts";

const ROOT = new URL("../../", import.meta.url);

/** The Kubernetes kinds the pages use, by `apiVersion/kind`, each with its schema check. */
const KINDS: Record<string, (object: unknown) => void> = {
  "apps/v1/Deployment": (o) => new Deployment(o as never).validate(),
  "batch/v1/Job": (o) => new Job(o as never).validate(),
  "v1/Service": (o) => new Service(o as never).validate(),
  "v1/ConfigMap": (o) => new ConfigMap(o as never).validate(),
  "v1/PersistentVolumeClaim": (o) => new PersistentVolumeClaim(o as never).validate(),
};

interface Block {
  readonly file: string;
  readonly line: number;
  readonly language: string;
  readonly text: string;
}

/** The fenced blocks of the Markdown pages, with where each starts. */
async function blocks(): Promise<Block[]> {
  const files = [
    "README.md",
    ...[...Deno.readDirSync(new URL("docs/", ROOT))]
      .filter((entry) => entry.name.endsWith(".md")).map((entry) => `docs/${entry.name}`),
  ];
  const found: Block[] = [];
  for (const file of files.sort()) {
    const text = await Deno.readTextFile(new URL(file, ROOT));
    for (const match of text.matchAll(/^( *)```(\w+)[^\n]*\n([\s\S]*?)^\1```/gm)) {
      const indent = match[1]!.length;
      found.push({
        file,
        line: text.slice(0, match.index).split("\n").length,
        language: match[2]!,
        text: match[3]!.split("\n").map((line) => line.slice(indent)).join("\n"),
      });
    }
  }
  return found;
}

const ALL = await blocks();
const where = (block: Block) => `${block.file}:${block.line}`;

Deno.test("every shell block parses with bash -n", async () => {
  const shell = ALL.filter((block) => block.language === "sh");
  assert.ok(shell.length > 10, `${shell.length} shell blocks`);
  for (const block of shell) {
    const output = await new Deno.Command("bash", {
      args: ["-n"],
      stdin: "piped",
      stderr: "piped",
    }).spawn();
    const writer = output.stdin.getWriter();
    await writer.write(new TextEncoder().encode(block.text));
    await writer.close();
    const { code, stderr } = await output.output();
    assert.equal(code, 0, `${where(block)}: ${new TextDecoder().decode(stderr)}`);
  }
});

Deno.test("every YAML block is strict YAML 1.2 and its Kubernetes objects match the schemas", () => {
  const yaml = ALL.filter((block) => block.language === "yaml");
  assert.ok(yaml.length >= 3, `${yaml.length} YAML blocks`);
  let objects = 0;
  for (const block of yaml) {
    const documents = parseAllDocuments(block.text, {
      version: "1.2",
      strict: true,
      uniqueKeys: true,
    });
    for (const document of [documents].flat()) {
      assert.deepEqual(document.errors.map((e) => e.message), [], where(block));
      assert.deepEqual(document.warnings.map((e) => e.message), [], where(block));
      const object = document.toJS() as { apiVersion?: string; kind?: string } | null;
      if (object?.kind === undefined) continue;
      const check = KINDS[`${object.apiVersion}/${object.kind}`];
      assert.ok(check, `${where(block)}: no schema for ${object.apiVersion} ${object.kind}`);
      assert.doesNotThrow(() => check(object), `${where(block)}: ${object.kind}`);
      checkHeaps(object, where(block));
      objects++;
    }
  }
  assert.ok(objects >= 4, `${objects} Kubernetes objects`);
});

Deno.test("the schemas refuse what the pages must not hold", () => {
  const deployment = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "x" },
    spec: {
      selector: { matchLabels: { app: "x" } },
      template: {
        spec: { containers: [{ name: "a", image: "b", ports: [{ containerPort: "http" }] }] },
      },
    },
  };
  assert.throws(() => KINDS["apps/v1/Deployment"]!(deployment), /containerPort must be integer/);
  const limit = structuredClone(deployment) as unknown as {
    spec: { template: { spec: { containers: Record<string, unknown>[] } } };
  };
  limit.spec.template.spec.containers[0] = {
    name: "a",
    image: "b",
    args: ["deno", "run", "--v8-flags=--max-old-space-size=512", "cli.ts", "serve"],
    resources: { limits: { memory: "512Mi" } },
  };
  assert.throws(() => checkHeaps(limit, "a test"), /heap of 512 MiB/);
});

/**
 * Each container with a memory limit that runs `serve` sets `--max-old-space-size` to at most
 * three quarters of it (V8 does not see a container's limit; the rest is for WASM and Deno).
 */
function checkHeaps(object: unknown, at: string): void {
  const template = (object as { spec?: { template?: { spec?: { containers?: unknown[] } } } })
    .spec?.template?.spec;
  for (const container of (template?.containers ?? []) as Record<string, unknown>[]) {
    const limit = (container.resources as { limits?: { memory?: string } } | undefined)?.limits
      ?.memory;
    const line = [...(container.command as string[] ?? []), ...(container.args as string[] ?? [])]
      .join(" ");
    if (limit === undefined || !/\bserve\b/.test(line)) continue;
    const heap = /--max-old-space-size=(\d+)/.exec(line);
    assert.ok(heap, `${at}: ${container.name} has a memory limit but no V8 heap limit`);
    const limitMiB = mebibytes(limit);
    assert.ok(
      Number(heap[1]) <= 0.75 * limitMiB,
      `${at}: a heap of ${heap[1]} MiB in a ${limitMiB} MiB container`,
    );
  }
}

function mebibytes(quantity: string): number {
  const match = /^(\d+)(Mi|Gi)$/.exec(quantity);
  assert.ok(match, `a memory quantity in Mi or Gi: ${quantity}`);
  return Number(match[1]) * (match[2] === "Gi" ? 1024 : 1);
}

/** The instructions of a Dockerfile, continuation lines joined, comments dropped. */
function instructions(text: string): { name: string; args: string }[] {
  return text.replace(/\\\n/g, " ").split("\n").map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const [name, ...rest] = line.split(/\s+/);
      return { name: name!.toUpperCase(), args: rest.join(" ") };
    });
}

/** The source paths of a COPY or ADD (its flags and its destination dropped). */
function copySources(args: string): string[] {
  const words = args.split(/\s+/).filter((word) => !word.startsWith("--"));
  return words.slice(0, -1);
}

/** A clone's tracked files less what `.dockerignore` excludes (names of files and folders). */
async function buildContext(): Promise<Set<string>> {
  const ignored = (await Deno.readTextFile(new URL(".dockerignore", ROOT))).split("\n")
    .map((line) => line.trim()).filter((line) => line !== "" && !line.startsWith("#"));
  return new Set(
    (await trackedFiles()).filter((path) =>
      !ignored.some((name) => path === name || path.startsWith(`${name}/`))
    ),
  );
}

Deno.test("the Dockerfile builds from a clone as written, and its heap limit fits the memory it runs with", async () => {
  const dockerfiles = ALL.filter((block) =>
    block.language === "dockerfile" && block.file === "docs/deployment.md"
  );
  const [image, ...derived] = dockerfiles;
  assert.ok(image, "docs/deployment.md shows the Dockerfile");
  assert.equal(image.text, await Deno.readTextFile(new URL("Dockerfile", ROOT)));
  const context = await buildContext();
  assert.ok(!context.has("tests/run_deno.ts") && !context.has("bench/README.md"));
  const steps = instructions(image.text);
  assert.match(steps[0]!.args, /^denoland\/deno:\d+\.\d+\.\d+$/);
  for (const step of steps.filter((s) => s.name === "COPY" || s.name === "ADD")) {
    for (const source of copySources(step.args)) {
      const present = source === "." ||
        [...context].some((path) =>
          path === source || path.startsWith(source.replace(/\/?$/, "/"))
        );
      assert.ok(present, `${where(image)}: COPY ${source} is not in the build context`);
    }
  }
  const cache = steps.find((s) => s.name === "RUN" && s.args.startsWith("deno cache "));
  assert.ok(cache, "the image caches its dependencies");
  const entries = cache.args.split(/\s+/).slice(2);
  for (const path of await moduleGraph(entries)) {
    assert.ok(context.has(path), `${path}, loaded by ${entries.join(" ")}, is not in the context`);
  }
  // The embedded example, read at run time when no bundle is given.
  assert.ok(context.has("examples/credit_approval_coloured/credit_approval_coloured.onnx"));

  const command = steps.find((s) => s.name === "CMD")!.args;
  const heap = Number(/--max-old-space-size=(\d+)/.exec(command)?.[1]);
  const run = ALL.find((block) =>
    block.language === "sh" && /docker run .*--memory/.test(block.text)
  );
  assert.ok(run, "the page runs the image with a memory limit");
  const memory = Number(/--memory (\d+)m\b/.exec(run.text)?.[1]);
  assert.ok(heap > 0 && heap <= 0.75 * memory, `a heap of ${heap} MiB in ${memory} MiB`);

  assert.ok(derived.length >= 1, "the page shows how to add a model to the image");
  for (const block of derived) {
    for (const step of instructions(block.text).filter((s) => s.name === "COPY")) {
      for (const source of copySources(step.args)) {
        assert.match(source, /^models\/?$/, `${where(block)}: copies only the user's model`);
      }
    }
  }
});
