/**
 * The OpenAPI document and what shows it: Swagger UI (`/docs`), ReDoc (`/redoc`), the links
 * page (`/`) and the favicon, each a static route.
 *
 * @module
 */

export { buildOpenApiDocument } from "./document.ts";
export { mountDoc, staticRoutes } from "./static_routes.ts";
