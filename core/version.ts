/**
 * The package's name and version, as `deno.json` states them (a test keeps the two in step).
 * Bundles record them as their producer.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PACKAGE_NAME, PACKAGE_VERSION } from "./version.ts";
 * assert.deepEqual(`${PACKAGE_NAME}@${PACKAGE_VERSION}`, "@petri/serve@0.1.0");
 * ```
 *
 * @module
 */

/**
 * The JSR package name.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PACKAGE_NAME } from "./version.ts";
 * assert.deepEqual(PACKAGE_NAME, "@petri/serve");
 * ```
 */
export const PACKAGE_NAME = "@petri/serve";

/**
 * The package version.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PACKAGE_VERSION } from "./version.ts";
 * assert.deepEqual(PACKAGE_VERSION, "0.1.0");
 * ```
 */
export const PACKAGE_VERSION = "0.1.0";

/**
 * The package's license (SPDX identifier), as `deno.json` and `LICENSE` state it; the
 * OpenAPI document reports it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { PACKAGE_LICENSE } from "./version.ts";
 * assert.deepEqual(PACKAGE_LICENSE, "MIT");
 * ```
 */
export const PACKAGE_LICENSE = "MIT";
