/**
 * `createApp` loads zod and zod-to-openapi lazily and names the one that cannot be loaded.
 *
 * @module
 */

import { equal, fail, ok, rejects } from "node:assert/strict";
import { createApp } from "../../../server/app.ts";
import { MissingPackageError } from "../../../server/pipeline/packages.ts";
import { get } from "../http.ts";
import { openModel, xorDescription } from "../models.ts";

const notFound = (name: string) => () =>
  Promise.reject(new TypeError(`Cannot find module 'npm:${name}'`));

Deno.test("createApp throws an Error naming zod when zod cannot be loaded", async () => {
  await using model = await openModel(xorDescription());
  await rejects(createApp(model, { packages: { zod: notFound("zod") } }), (error) => {
    ok(error instanceof MissingPackageError && error instanceof Error);
    equal(error.packageName, "zod");
    equal(
      error.message,
      "Cannot create the app: the package 'zod' cannot be loaded " +
        "(Cannot find module 'npm:zod')",
    );
    ok(error.cause instanceof TypeError);
    return true;
  });
});

Deno.test("createApp throws an Error naming zod-to-openapi when it cannot be loaded", async () => {
  await using model = await openModel(xorDescription());
  const name = "@asteasolutions/zod-to-openapi";
  await rejects(createApp(model, { packages: { zodToOpenApi: notFound(name) } }), (error) => {
    ok(error instanceof MissingPackageError);
    equal(error.packageName, name);
    ok(error.message.includes(`'${name}'`), error.message);
    return true;
  });
});

Deno.test("createApp uses the injected packages", async () => {
  await using model = await openModel(xorDescription());
  const loaded: string[] = [];
  const app = await createApp(model, {
    packages: {
      zod: () => (loaded.push("zod"), import("zod")),
      zodToOpenApi: () => (loaded.push("zod-to-openapi"), import("@asteasolutions/zod-to-openapi")),
    },
  });
  equal(loaded.join(), "zod,zod-to-openapi");
  equal((await get(app, "/healthz")).status, 200);
});

Deno.test("the server imports zod, zod-to-openapi and swagger-ui-dist only dynamically", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", new URL("../../../server/mod.ts", import.meta.url).pathname],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) fail(new TextDecoder().decode(output.stderr));
  const graph: {
    modules: {
      specifier: string;
      dependencies?: { code?: { specifier: string }; isDynamic?: boolean }[];
    }[];
  } = JSON.parse(new TextDecoder().decode(output.stdout));
  const lazy = /^npm:\/?(zod|@asteasolutions\/zod-to-openapi|swagger-ui-dist)@/;
  let found = 0;
  for (const module of graph.modules) {
    for (const dependency of module.dependencies ?? []) {
      if (!dependency.code || !lazy.test(dependency.code.specifier)) continue;
      found++;
      ok(
        dependency.isDynamic,
        `${module.specifier} imports ${dependency.code.specifier} statically`,
      );
    }
  }
  ok(found >= 4, `only ${found} imports of the lazy packages found`);
});
