// The public surface of @lattice/sdk, named one by one; the generated request and answer types
// are re-exported whole (they are many, and the generator keeps their names unique).

export type { FieldError, LatticeErrorInit } from './errors.ts';
export { LatticeError, WebhookVerificationError } from './errors.ts';
export type * from './generated/edge-api.ts';
export type * from './generated/management-api.ts';
export { CATALOG_VERSION } from './generated/management-operations.ts';
export type * from './generated/schema-types.ts';
export type { LatticeOptions } from './lattice.ts';
export { DEFAULT_BASE_URL, Lattice } from './lattice.ts';
export type { LatticeEdgeOptions } from './lattice-edge.ts';
export { DEFAULT_EDGE_URL, LatticeEdge } from './lattice-edge.ts';
export type { ListItem, ListPage, Page, PageResult } from './pagination.ts';
export type { RetryOptions } from './retry-policy.ts';
export type { RequestOptions } from './transport.ts';
export { SDK_VERSION } from './version.ts';
export type { VerifyWebhookOptions, WebhookEvent, WebhookHeaders } from './webhook.ts';
export { verifyWebhook } from './webhook.ts';
