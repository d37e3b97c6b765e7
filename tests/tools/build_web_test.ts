/**
 * The committed playground build (`web/build/`, imported by the generated
 * `web/build/mod.ts`) is what `deno task build:web` makes from the current
 * `web/` and `core/` sources; the packaged playground lists every file the page loads; and the
 * static-site build still writes a complete site.
 *
 * @module
 */

import assert from "node:assert/strict";
import {
  buildWeb,
  hashedWasmNames,
  PLAYGROUND_BUILD_DIR,
  STORED_SUFFIX,
  writePlaygroundBundle,
} from "../../tools/build_web.ts";
import { PLAYGROUND_SCRIPTS, PLAYGROUND_WASM } from "../../web/build/mod.ts";
import { PLAYGROUND_FILES } from "../../adapter/deno/playground_site.ts";
import { WASM_FILES } from "../../web/backends.ts";

const STALE = "web/build/ is out of date: run `deno task build:web` and commit the result";

Deno.test("the committed playground build is up to date with web/ and core/", async () => {
  const dir = await Deno.makeTempDir({ prefix: "petri-bundle-" });
  try {
    const names = await writePlaygroundBundle(dir);
    const committed = [...Deno.readDirSync(PLAYGROUND_BUILD_DIR)]
      .filter((e) => e.name.endsWith(STORED_SUFFIX))
      .map((e) => e.name.slice(0, -STORED_SUFFIX.length)).sort();
    assert.deepEqual(committed, names, STALE);
    assert.deepEqual([...PLAYGROUND_SCRIPTS.keys()].sort(), names, STALE);
    const wasm = [...await hashedWasmNames()].map(([file, hashed]) => [hashed, file]);
    assert.deepEqual([...PLAYGROUND_WASM].sort(), wasm.sort(), STALE);
    for (const name of names) {
      const fresh = await Deno.readTextFile(`${dir}/${name}${STORED_SUFFIX}`);
      assert.ok(fresh === await PLAYGROUND_SCRIPTS.get(name)!(), `${name}: ${STALE}`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the bundle is the same whichever directory the checkout is in", async () => {
  // Deno keeps npm packages outside the checkout, so their paths relative to it change with
  // its depth; esbuild's own chunk names hashed those paths (a CI clone failed on it).
  const root = new URL("../../", import.meta.url);
  const tmp = await Deno.makeTempDir({ prefix: "petri-deep-" });
  const copy = `${tmp}/one/two/three/petri-serve`;
  try {
    for (const dir of ["adapter", "core", "tools", "web"]) {
      await copyTree(new URL(`${dir}/`, root), `${copy}/${dir}`);
    }
    for (const file of ["deno.json", "deno.lock"]) {
      await Deno.copyFile(new URL(file, root), `${copy}/${file}`);
    }
    await Deno.remove(`${copy}/web/build`, { recursive: true });
    const built = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "tools/build_web.ts"],
      cwd: copy,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.ok(built.success, new TextDecoder().decode(built.stderr));
    const names = (dir: string | URL) => [...Deno.readDirSync(dir)].map((e) => e.name).sort();
    assert.deepEqual(names(`${copy}/web/build`), names(PLAYGROUND_BUILD_DIR));
    for (const name of names(PLAYGROUND_BUILD_DIR)) {
      assert.ok(
        await Deno.readTextFile(`${copy}/web/build/${name}`) ===
          await Deno.readTextFile(new URL(name, PLAYGROUND_BUILD_DIR)),
        name,
      );
    }
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

async function copyTree(from: URL, to: string) {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isDirectory) await copyTree(new URL(`${entry.name}/`, from), `${to}/${entry.name}`);
    else if (entry.isFile) await Deno.copyFile(new URL(entry.name, from), `${to}/${entry.name}`);
  }
}

Deno.test("the packaged playground has the page, the bundle, ORT's wasm files and the example", () => {
  const paths = [...PLAYGROUND_FILES.keys()];
  for (const path of ["index.html", "style.css", ...PLAYGROUND_SCRIPTS.keys()]) {
    assert.ok(paths.includes(path), path);
  }
  // ORT's .wasm files under the content-hashed names the bundle loads them by.
  assert.deepEqual([...PLAYGROUND_WASM.values()].sort(), Object.values(WASM_FILES).sort());
  for (const hashed of PLAYGROUND_WASM.keys()) assert.ok(paths.includes(`ort/${hashed}`), hashed);
  assert.ok(paths.includes("examples/credit_approval_coloured.onnx"));
  assert.ok(paths.includes("examples/credit_approval_coloured.onnx.meta.json"));
});

Deno.test("buildWeb writes a static site with the same files", async () => {
  const dir = await Deno.makeTempDir({ prefix: "petri-site-" });
  try {
    const site = await buildWeb({ outDir: dir });
    assert.deepEqual(site.files.map((f) => f.path).sort(), [...PLAYGROUND_FILES.keys()].sort());
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
