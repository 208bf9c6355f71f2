// What the SDK is generated from: the management API's catalog (its RouteDefs, and the OpenAPI
// document built from them as the app builds it: services/management/src/app.ts), the public
// edge's keyed routes (PUBLIC_ROUTES) and the JSON Schemas of schemas/http. The catalog is built
// without a database: its routes are only read here, never served, so every dependency is a stub
// that nothing calls.
import {
  buildOpenApi,
  catalogRoutes,
  loadSchemaRegistry,
  type OpenApiDocument,
  PUBLIC_ROUTES,
  type RouteDef,
  type SchemaRegistry,
} from '@lattice/http';
import { withAccessErrors } from '../../../services/management/src/auth/access-policy.ts';
import {
  type CatalogDeps,
  MANAGEMENT_API_INFO,
  managementCatalog,
} from '../../../services/management/src/route-table.ts';

/** One operation as the generator needs it, management or edge alike. */
export interface CatalogOperation {
  operationId: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Relative to the client's base URL, `{name}` for a path parameter. */
  path: string;
  summary?: string;
  description?: string;
  request: { params?: string; query?: string; body?: string; headers?: string };
  responses: RouteDef['responses'];
}

export interface SdkCatalog {
  schemas: SchemaRegistry;
  /** The management API's routes, as the app serves them (access errors added). */
  routes: RouteDef[];
  openApi: OpenApiDocument;
  management: CatalogOperation[];
  /** The public edge's keyed operations, paths under `/{toolkit}`. */
  edge: CatalogOperation[];
}

/** A value that is every dependency at once: any property, any call, gives itself again. */
function stubDependency(): CatalogDeps {
  const stub: object = new Proxy(() => {}, {
    get: (_target, key) => (key === 'then' ? undefined : stub),
    apply: () => stub,
  });
  return stub as CatalogDeps;
}

export function loadSdkCatalog(): SdkCatalog {
  const schemas = loadSchemaRegistry();
  const routes = catalogRoutes(managementCatalog(stubDependency()).map(withAccessErrors));
  const openApi = buildOpenApi(routes, MANAGEMENT_API_INFO, schemas);
  const management = routes.map(
    (route): CatalogOperation => ({
      operationId: route.operationId,
      method: route.method,
      path: route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}'),
      summary: route.summary,
      description: route.description,
      request: { ...route.request },
      responses: route.responses,
    }),
  );
  const summaries = new Map(routes.map((r) => [r.operationId, r.summary]));
  const edge = PUBLIC_ROUTES.filter((route) => route.keyed).map((route): CatalogOperation => {
    // The management API's twin (`public_mail_email_send` ↔ `mail_email_send`) names it best.
    const summary = summaries.get(route.operationId.replace(/^public_/, ''));
    return {
      operationId: route.operationId,
      method: route.method,
      path: `/${route.toolkit}${route.path}`,
      ...(summary ? { summary } : {}),
      request: { ...route.request },
      responses: route.responses ?? {},
    };
  });
  return { schemas, routes, openApi, management, edge };
}
