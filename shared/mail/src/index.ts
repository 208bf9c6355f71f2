// @lattice/mail: the mail toolkit's domain. Names are re-exported one by one.
export type { Mailbox } from './addresses.ts';
export { isDomainName, normalizedAddress, parseMailbox } from './addresses.ts';
export type {
  BounceKind,
  MailEventPublisher,
  MailEventRecord,
  MailEventType,
} from './events/mail-event.ts';
export {
  createMailEventPublisher,
  MAIL_EVENT_TYPES,
  mailEventCodec,
  mailEventKey,
} from './events/mail-event.ts';
export { MAIL_ERRORS, MAIL_STEP } from './mail-errors.ts';
export {
  emailIdFromMessageId,
  emailIdFromVerp,
  messageIdFor,
  RETURN_PATH_LABEL,
  returnPathDomain,
  verpAddress,
} from './return-path.ts';
export { createPostgresSuppressionStore } from './suppression/suppression-store.postgres.ts';
export type {
  Suppression,
  SuppressionPage,
  SuppressionReason,
  SuppressionStore,
} from './suppression/suppression-store.ts';
export { SUPPRESSION_REASONS } from './suppression/suppression-store.ts';
export type { RewriteOptions } from './tracking/html-rewrite.ts';
export { rewriteHtml } from './tracking/html-rewrite.ts';
export type { TrackingHandlersDeps } from './tracking/tracking-handlers.ts';
export { createTrackingHandlers } from './tracking/tracking-handlers.ts';
export type { TrackedEmail, TrackingLinks, TrackingLinksDeps } from './tracking/tracking-links.ts';
export { createTrackingLinks } from './tracking/tracking-links.ts';
export type { TrackingMetrics, TrackingRoute } from './tracking/tracking-metrics.ts';
export { trackingMetrics } from './tracking/tracking-metrics.ts';
export type { TrackingClaims, TrackingKind } from './tracking/tracking-token.ts';
export {
  MAX_TRACKING_TOKEN_CHARS,
  signTrackingToken,
  TRACKING_TOKEN_PURPOSE,
  verifyTrackingToken,
} from './tracking/tracking-token.ts';
