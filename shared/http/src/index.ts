export { canonicalJson } from './canonical-json.ts';
export { attachClientErrorHandler } from './client-error.ts';
export { clientErrorOf, errorMiddleware, internalError } from './error-mapping.ts';
export { HTTP_ERRORS, STEP } from './http-errors.ts';
export { createHttpServer } from './http-server.ts';
export { IDEMPOTENCY_KEY_MAX, idempotencyKeyProblem } from './idempotency-key.ts';
export type { OpenApiDocument, OpenApiInfo } from './openapi.ts';
export { buildOpenApi, CATALOG_VERSION_HEADER } from './openapi.ts';
export type { Preference } from './prefer-header.ts';
export { PREFERENCE_APPLIED_HEADER, parsePreferHeader } from './prefer-header.ts';
export type { PublicHandler, PublicHandlers, PublicRoutes } from './public-handlers.ts';
export { bindPublicRoutes } from './public-handlers.ts';
export type { PublicMethod, PublicRoute, Toolkit } from './public-routes.ts';
export {
  allowedMethods,
  findKeyedRoute,
  isToolkit,
  MAIL_SEND_BODY_LIMIT_BYTES,
  matchPublicRoute,
  PUBLIC_ROUTES,
  TOOLKITS,
} from './public-routes.ts';
export { bodyReader } from './request-body.ts';
export {
  REQUEST_ID_HEADER,
  REQUEST_ID_MAX_LENGTH,
  requestIdFrom,
  requestIdOf,
  setRequestId,
} from './request-id.ts';
export { logRequestWhenDone, requestLogMiddleware } from './request-log.ts';
export type {
  AuditTarget,
  Authenticator,
  Principal,
  RouteAccess,
  RouteAudit,
  RouteContext,
  RouteDef,
  RouteResult,
} from './route-def.ts';
export { catalogRoutes, DEFAULT_BODY_LIMIT_BYTES } from './route-def.ts';
export { buildRouter, operationIdOf } from './router.ts';
export { dereference as dereferenceSchema } from './schema-refs.ts';
export type { SchemaRegistry } from './schema-registry.ts';
export { loadSchemaRegistry } from './schema-registry.ts';
export type { ToolDefinition } from './tool-catalog.ts';
export { buildToolCatalog } from './tool-catalog.ts';
export { createSchemaChecker } from './validation.ts';
