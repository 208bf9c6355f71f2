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
export type { InboundReceiverDeps, RunningInboundReceiver } from './inbound/inbound-receiver.ts';
export { startInboundReceiver } from './inbound/inbound-receiver.ts';
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
