export { canonicalJson } from './canonical-json.ts';
export { attachClientErrorHandler } from './client-error.ts';
export { clientErrorOf, errorMiddleware, internalError } from './error-mapping.ts';
export { HTTP_ERRORS, STEP } from './http-errors.ts';
export type { OpenApiDocument, OpenApiInfo } from './openapi.ts';
export {
  buildOpenApi,
  CATALOG_VERSION_HEADER,
  catalogVersionOf,
  ERROR_BODY_SCHEMA_ID,
} from './openapi.ts';
export { toOpenApiPath } from './path-template.ts';
export type {
  PublicHandler,
  PublicHandlers,
  PublicRouteContext,
  PublicRouteInput,
  PublicRouteRunner,
  PublicRoutes,
} from './public-handlers.ts';
export { bindPublicRoutes } from './public-handlers.ts';
export type { PublicMethod, PublicRoute, RouteMatch, Toolkit } from './public-routes.ts';
export {
  allowedMethods,
  findKeyedRoute,
  isToolkit,
  MAIL_SEND_BODY_LIMIT_BYTES,
  matchPublicRoute,
  PUBLIC_ROUTES,
  PUBLISH_BODY_LIMIT_BYTES,
  REALTIME_BODY_LIMIT_BYTES,
  TOOLKITS,
} from './public-routes.ts';
export type {
  Authenticator,
  AuthKind,
  HttpMethod,
  MemberRole,
  Principal,
  ResponseDef,
  RouteAccess,
  RouteContext,
  RouteDef,
  RouteResult,
} from './route-def.ts';
export {
  BODY_METHODS,
  catalogRoutes,
  DEFAULT_BODY_LIMIT_BYTES,
  HTTP_METHODS,
  responseDef,
} from './route-def.ts';
export { checkRouteTable } from './route-table-check.ts';
export type { RouterDeps } from './router.ts';
export { buildRouter, operationIdOf } from './router.ts';
export type { JsonSchema, SchemaRegistry } from './schema-registry.ts';
export { createSchemaRegistry, HTTP_SCHEMAS_DIR, loadSchemaRegistry } from './schema-registry.ts';
export type { ToolDefinition } from './tool-catalog.ts';
export { buildToolCatalog } from './tool-catalog.ts';
export { createSchemaChecker } from './validation.ts';
