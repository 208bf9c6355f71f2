// How a route describes one of its answers. A file of its own, free of imports, because
// public-routes.ts uses it and that table is also bundled into the dashboard page (a browser).
export interface ResponseDef {
  /** `$id` of the response body schema; omit for bodies that are not JSON. */
  schema?: string;
  contentType?: string;
  description?: string;
  /** Response headers particular to this answer: name → what it says. */
  headers?: Record<string, string>;
}
