/**
 * zod and @asteasolutions/zod-to-openapi, loaded by `createApp` rather than on import; a
 * package that cannot load is named. The loaders are injectable, to test a missing one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadPackages } from "./packages.ts";
 * const { zod, zodToOpenApi } = await loadPackages();
 * assert.equal(zod.string().parse("ok"), "ok");
 * assert.equal(typeof zodToOpenApi.OpenApiGeneratorV31, "function");
 * ```
 *
 * @module
 */

import type * as ZodToOpenApi from "@asteasolutions/zod-to-openapi";
import type { ZodModule } from "../../core/schemas/mod.ts";

/** The @asteasolutions/zod-to-openapi module namespace. */
export type ZodToOpenApiModule = typeof ZodToOpenApi;

/** How to import each lazily loaded package; the defaults are dynamic imports. */
export interface PackageLoaders {
  /** Imports zod (default `import("zod")`). */
  readonly zod?: () => Promise<ZodModule>;
  /** Imports zod-to-openapi (default `import("@asteasolutions/zod-to-openapi")`). */
  readonly zodToOpenApi?: () => Promise<ZodToOpenApiModule>;
}

/** The loaded packages. */
export interface Packages {
  readonly zod: ZodModule;
  readonly zodToOpenApi: ZodToOpenApiModule;
}

/** A package the server needs could not be imported. */
export class MissingPackageError extends Error {
  /** Always `"MissingPackageError"`. */
  override readonly name = "MissingPackageError";

  /**
   * Builds the error and its message.
   *
   * @param packageName the npm name of the package
   * @param cause the import's error
   */
  constructor(readonly packageName: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`Cannot create the app: the package '${packageName}' cannot be loaded (${reason})`, {
      cause,
    });
  }
}

/**
 * Imports zod and zod-to-openapi (with the given loaders, else dynamic imports).
 *
 * @throws {MissingPackageError} naming the package that cannot be loaded.
 */
export async function loadPackages(loaders: PackageLoaders = {}): Promise<Packages> {
  const zod = await load("zod", loaders.zod ?? (() => import("zod")));
  const zodToOpenApi = await load(
    "@asteasolutions/zod-to-openapi",
    loaders.zodToOpenApi ?? (() => import("@asteasolutions/zod-to-openapi")),
  );
  return { zod, zodToOpenApi };
}

async function load<T>(name: string, importer: () => Promise<T>): Promise<T> {
  try {
    return await importer();
  } catch (error) {
    throw new MissingPackageError(name, error);
  }
}
