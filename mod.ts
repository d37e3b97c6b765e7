/**
 * petri-serve: serve trained PETRA Petri-net models. This entry point re-exports the
 * environment-agnostic core: the net types, structural queries and the model description
 * reader / writer.
 *
 * ```ts
 * import { netStructure, parseModelDescription } from "@petri/serve";
 * declare const json: unknown;
 * const model = parseModelDescription(json);
 * netStructure(model.net).sourcePlaces;
 * ```
 *
 * @module
 */

export * from "./core/net/types.ts";
export * from "./core/net/structure.ts";
export * from "./core/net/parse.ts";
export * from "./core/net/quote_id.ts";
