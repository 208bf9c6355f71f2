// The mail toolkit's own refusals, in one place so the public edge and the management API answer
// a given request alike; the generic ones (validation, bodies) are @lattice/http's HTTP_ERRORS.
// Statuses follow the spec's "Mail toolkit" errors and decisions.md; codes and steps are ours
// (docs/mail.md).
import { ApiError } from '@lattice/core';

export const MAIL_STEP = {
  domainCheck: 'domain_check',
  idempotency: 'idempotency',
  sendRate: 'send_rate',
  queue: 'queue',
  lookup: 'lookup',
  domains: 'domains',
  suppressions: 'suppressions',
  tracking: 'tracking',
  webhooks: 'webhooks',
} as const;

export const MAIL_ERRORS = {
  domainNotVerified: (domain: string, locked: boolean) =>
    new ApiError(
      422,
      'domain_not_verified',
      MAIL_STEP.domainCheck,
      locked
        ? `This key may send only from its locked domain, not from "${domain}"`
        : `"${domain}" is not a verified sending domain of this product`,
    ),
  sendRateExceeded: (headers: Record<string, string>) =>
    new ApiError(
      429,
      'rate_limited',
      MAIL_STEP.sendRate,
      'The product’s send rate for this second is used up; retry after the window rolls',
      { headers },
    ),
  idempotencyKeyInUse: () =>
    new ApiError(
      409,
      'idempotency_key_in_use',
      MAIL_STEP.idempotency,
      'A send with this Idempotency-Key is still being processed; retry later',
      { headers: { 'Retry-After': '1' } },
    ),
  idempotencyKeyMismatch: () =>
    new ApiError(
      409,
      'idempotency_key_mismatch',
      MAIL_STEP.idempotency,
      'This Idempotency-Key was used for a send with another body within the last 5 minutes',
    ),
  sendUnavailable: () =>
    new ApiError(503, 'send_unavailable', MAIL_STEP.queue, 'Sending is unavailable; retry with backoff', {
      headers: { 'Retry-After': '1' },
    }),
  emailNotFound: () => new ApiError(404, 'not_found', MAIL_STEP.lookup, 'No email with this id'),
  emailUnavailable: () =>
    new ApiError(
      503,
      'email_unavailable',
      MAIL_STEP.lookup,
      'Emails cannot be read right now; retry with backoff',
      {
        headers: { 'Retry-After': '1' },
      },
    ),
  domainNotFound: () => new ApiError(404, 'not_found', MAIL_STEP.domains, 'No mail domain with this id'),
  domainExists: (name: string) =>
    new ApiError(409, 'domain_exists', MAIL_STEP.domains, `"${name}" is already a domain of this product`),
  /** Deleting it would silently unlock the key (mail_api_keys.domain_id is ON DELETE SET NULL). */
  domainInUse: () =>
    new ApiError(
      409,
      'domain_in_use',
      MAIL_STEP.domains,
      'A mail API key is locked to this domain; delete that key first, then the domain',
    ),
  suppressionNotFound: () =>
    new ApiError(404, 'not_found', MAIL_STEP.suppressions, 'This address is not on the suppression list'),
  /** Tracking and unsubscribe links: tampered, unknown or for another product. Nothing is recorded. */
  linkNotFound: () => new ApiError(404, 'not_found', MAIL_STEP.tracking, 'This link is not valid'),
  /** A one-click unsubscribe that could not be stored (PostgreSQL unreachable): retry. */
  unsubscribeUnavailable: () =>
    new ApiError(
      503,
      'unsubscribe_unavailable',
      MAIL_STEP.tracking,
      'The unsubscribe could not be recorded right now; retry shortly',
      { headers: { 'Retry-After': '5' } },
    ),
  webhookNotFound: () =>
    new ApiError(404, 'not_found', MAIL_STEP.webhooks, 'No webhook endpoint with this id'),
  webhookDeliveryNotFound: () =>
    new ApiError(404, 'not_found', MAIL_STEP.webhooks, 'No delivery with this id for this webhook endpoint'),
  /** Only a delivery that failed for good goes back to pending; the others are still in hand or done. */
  webhookDeliveryNotFailed: (status: string) =>
    new ApiError(
      409,
      'webhook_delivery_not_failed',
      MAIL_STEP.webhooks,
      `Only a failed delivery can be retried; this one is ${status}`,
    ),
  /** A disabled endpoint receives nothing (spec), so nothing is queued for it either. */
  webhookEndpointDisabled: () =>
    new ApiError(
      409,
      'webhook_endpoint_disabled',
      MAIL_STEP.webhooks,
      'The webhook endpoint is disabled; enable it with mail_webhook_update first',
    ),
};
