// @lattice/mail: the mail toolkit's domain. Names are re-exported one by one.
export type { Mailbox } from './addresses.ts';
export { isDomainName, normalizedAddress, parseMailbox } from './addresses.ts';
export type { EmailState, EmailStatus, LastEvent } from './email-state/email-state.ts';
export { EMAIL_STATUSES } from './email-state/email-state.ts';
export type {
  CreateEmailStateActorKindOptions,
  EmailStateActorDeps,
} from './email-state/email-state-actor.ts';
export {
  createEmailStateActorKind,
  EMAIL_STATE_ACTOR_KIND,
  emailStateActorKind,
} from './email-state/email-state-actor.ts';
export type {
  EmailEventDropReason,
  EmailStateDecision,
  EmailStateEffect,
} from './email-state/email-state-logic.ts';
export { applyMailEvent, mailEventProblem } from './email-state/email-state-logic.ts';
export type { EmailStateDropReason, EmailStateMetrics } from './email-state/email-state-metrics.ts';
export { emailStateMetrics } from './email-state/email-state-metrics.ts';
export { createPostgresEmailStateStore } from './email-state/email-state-store.postgres.ts';
export type {
  EmailStateCommit,
  EmailStateStore,
  EmailStateSuppression,
  StoredEmailState,
} from './email-state/email-state-store.ts';
export { EmailStateFencedError } from './email-state/email-state-store.ts';
export type { EmailView } from './emails/email-reader.ts';
export { readEmail } from './emails/email-reader.ts';
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
