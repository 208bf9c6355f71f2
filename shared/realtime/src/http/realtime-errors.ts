// The refusals of the realtime HTTP surfaces (public edge toolkit and management API) that are
// the toolkit's own, in one place so both answer a given request alike; the generic ones
// (validation, bodies) are @lattice/http's HTTP_ERRORS. Statuses follow the spec's "Realtime HTTP
// statuses"; codes and steps are ours (docs/realtime-http.md).
import { ApiError } from '@lattice/core';

export const REALTIME_STEP = {
  namespacePolicy: 'namespace_policy',
  idempotency: 'idempotency',
  publishQuota: 'publish_quota',
  payloadStorage: 'payload_storage',
  publish: 'publish',
  history: 'history',
  presence: 'presence',
} as const;

export const REALTIME_ERRORS = {
  namespaceNotFound: (namespace: string) =>
    new ApiError(
      404,
      'namespace_not_found',
      REALTIME_STEP.namespacePolicy,
      `The namespace "${namespace}" is not registered for this product`,
    ),
  presenceDisabled: (namespace: string) =>
    new ApiError(
      403,
      'presence_disabled',
      REALTIME_STEP.namespacePolicy,
      `Presence is not enabled for the namespace "${namespace}"`,
    ),
  noCapabilities: () =>
    new ApiError(
      422,
      'no_capabilities',
      REALTIME_STEP.namespacePolicy,
      'Namespace policy removed every requested capability; nothing is left to grant',
    ),
  quotaExceeded: (headers: Record<string, string>) =>
    new ApiError(
      429,
      'publish_quota_exceeded',
      REALTIME_STEP.publishQuota,
      'The product’s publish quota for this window is used up; retry after the window rolls',
      { headers },
    ),
  idempotencyKeyInUse: () =>
    new ApiError(
      409,
      'idempotency_key_in_use',
      REALTIME_STEP.idempotency,
      'A request with this Idempotency-Key is still being processed; retry later',
      { headers: { 'Retry-After': '1' } },
    ),
  idempotencyKeyMismatch: () =>
    new ApiError(
      409,
      'idempotency_key_mismatch',
      REALTIME_STEP.idempotency,
      'This Idempotency-Key was used for a publish to another channel within the last 5 minutes',
    ),
  payloadStorageNotProvisioned: () =>
    new ApiError(
      503,
      'payload_storage_not_provisioned',
      REALTIME_STEP.payloadStorage,
      'Data over 262144 bytes needs payload storage, which is not provisioned for this product',
    ),
  payloadStorageUnavailable: () =>
    new ApiError(
      503,
      'payload_storage_unavailable',
      REALTIME_STEP.payloadStorage,
      'Payload storage is unavailable; retry with backoff',
      { headers: { 'Retry-After': '1' } },
    ),
  publishUnavailable: (message = 'Publishing is unavailable; retry with backoff') =>
    new ApiError(503, 'publish_unavailable', REALTIME_STEP.publish, message, {
      headers: { 'Retry-After': '1' },
    }),
  historyUnavailable: () =>
    new ApiError(
      503,
      'history_unavailable',
      REALTIME_STEP.history,
      'History is unavailable; retry with backoff',
      {
        headers: { 'Retry-After': '1' },
      },
    ),
  presenceUnavailable: () =>
    new ApiError(
      503,
      'presence_unavailable',
      REALTIME_STEP.presence,
      'Presence is unavailable; retry with backoff',
      { headers: { 'Retry-After': '1' } },
    ),
};
