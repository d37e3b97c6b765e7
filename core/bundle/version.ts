/**
 * The package's name, version and license, as `deno.json` states them (a test keeps them in
 * step); bundles record the first two as their producer.
 *
 * @module
 */

/** The JSR package name. */
export const PACKAGE_NAME = "@petri/serve";

/** The package version. */
export const PACKAGE_VERSION = "0.1.0";

/** The package's license (SPDX identifier), reported by the OpenAPI document. */
export const PACKAGE_LICENSE = "MIT";
