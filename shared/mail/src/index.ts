// @lattice/mail: the mail toolkit's domain. Names are re-exported one by one.
export type { Mailbox } from './addresses.ts';
export { isDomainName, normalizedAddress, parseMailbox } from './addresses.ts';
export type { DkimKeyPair } from './domains/dkim-key.ts';
export { DKIM_SEAL_PURPOSE, dkimSelectorFor, generateDkimKeyPair } from './domains/dkim-key.ts';
export { createNodeDnsLookup } from './domains/dns-lookup.node.ts';
export type { DnsLookup, DnsLookupSettings } from './domains/dns-lookup.ts';
export { DOMAIN_NAME_MAX_CHARS, sendingDomainName } from './domains/domain-name.ts';
export type {
  DomainRecord,
  DomainRecordKind,
  DomainRecordSettings,
  RecordStatus,
} from './domains/domain-records.ts';
export { domainRecords } from './domains/domain-records.ts';
export { createPostgresDomainStore } from './domains/domain-store.postgres.ts';
export type {
  DomainDeleteOutcome,
  DomainPage,
  DomainStatus,
  DomainStore,
  MailDomain,
  SigningKey,
  VerifiedDomain,
} from './domains/domain-store.ts';
export type { DomainVerification } from './domains/domain-verification.ts';
export { verifyDomainRecords } from './domains/domain-verification.ts';
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
export type {
  EmailAcceptor,
  SendAnswer,
  SendInput,
  SendingDomain,
  SendingDomains,
} from './emails/email-acceptor.ts';
export { createEmailAcceptor, SUPPRESSED_AT_ACCEPT, sendRatePolicy } from './emails/email-acceptor.ts';
export type { EmailView } from './emails/email-reader.ts';
export { readEmail } from './emails/email-reader.ts';
export type { MailOutboundRecord } from './emails/outbound-record.ts';
export { derivedEventId, mailOutboundCodec } from './emails/outbound-record.ts';
export type { SendEmailBody, SendRequest } from './emails/send-request.ts';
export { checkSendBody } from './emails/send-request.ts';
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
export type { MailHttp } from './http/mail-http.ts';
export type { MailHttpMetrics } from './http/mail-http-metrics.ts';
export { mailHttpMetrics } from './http/mail-http-metrics.ts';
export type { MailHttpRuntime, MailHttpRuntimeDeps, MailHttpSettings } from './http/mail-http-runtime.ts';
export { mailHttpSettingsOf, startMailHttpRuntime } from './http/mail-http-runtime.ts';
export type { InboundReceiverDeps, RunningInboundReceiver } from './inbound/inbound-receiver.ts';
export { startInboundReceiver } from './inbound/inbound-receiver.ts';
export { MAIL_ERRORS, MAIL_STEP } from './mail-errors.ts';
export type { MailStages, WebhookStages } from './mail-stages.ts';
export { mailStages, webhookStages } from './mail-stages.ts';
export type { PurgeRun, RetentionPurge, RetentionPurgeOptions } from './retention/mail-retention.ts';
export {
  createEmailPurge,
  createIdempotencyKeyPurge,
  createWebhookDeliveryPurge,
} from './retention/mail-retention.ts';
export {
  emailIdFromMessageId,
  emailIdFromVerp,
  messageIdFor,
  RETURN_PATH_LABEL,
  returnPathDomain,
  verpAddress,
} from './return-path.ts';
export { MAIL_SEALED_COLUMNS } from './sealed-columns.ts';
export { emailLinksOf } from './sender/email-links.ts';
export type { DkimKey, EmailLinks, MessageBuilder, SigningKeys } from './sender/message-builder.ts';
export { createMessageBuilder, UnsendableError } from './sender/message-builder.ts';
export { MAIL_SENDER_KIND, mailSenderActorKind } from './sender/sender-actor.ts';
export type { SendState } from './sender/sender-logic.ts';
export type { SenderMetrics } from './sender/sender-metrics.ts';
export { senderMetrics } from './sender/sender-metrics.ts';
export { createPostgresSenderStore } from './sender/sender-store.postgres.ts';
export type { SenderEmail, SenderStore } from './sender/sender-store.ts';
export { createSenderSweeps } from './sender/sender-sweeps.ts';
export type { SmtpOutcome } from './sender/smtp-outcome.ts';
export { providerMessageIdOf, smtpOutcomeOf } from './sender/smtp-outcome.ts';
export type { MailTransport, SmtpTransportOptions } from './sender/smtp-transport.ts';
export { createSmtpTransport } from './sender/smtp-transport.ts';
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
export type {
  AttemptAnswer,
  AttemptDecision,
  DeliveryAttempts,
  EndpointEffect,
  RetrySchedule,
} from './webhooks/delivery-logic.ts';
export {
  ATTEMPTS_PER_ROUND,
  AUTO_DISABLE_AFTER_FAILURES,
  decideAfterAttempt,
  RETRY_JITTER_RATIO,
  retryDelayMs,
} from './webhooks/delivery-logic.ts';
export type { DeliveryMetrics } from './webhooks/delivery-metrics.ts';
export { deliveryMetrics } from './webhooks/delivery-metrics.ts';
export { createPostgresDeliveryStore } from './webhooks/delivery-store.postgres.ts';
export type {
  AttemptOutcome,
  DeliveryStore,
  DeliveryWindow,
  EndpointForAttempt,
  PendingDelivery,
  RecordedAttempt,
} from './webhooks/delivery-store.ts';
export { WEBHOOK_ENDPOINT_KIND, webhookEndpointActorKind } from './webhooks/endpoint-actor.ts';
export { createPostgresWebhookEndpointStore } from './webhooks/endpoint-store.postgres.ts';
export type {
  RecoverOutcome,
  RetryDeliveryOutcome,
  TestDeliveryOutcome,
  WebhookActionRefusal,
  WebhookDelivery,
  WebhookDeliveryPage,
  WebhookDeliveryStatus,
  WebhookDisabledReason,
  WebhookEndpoint,
  WebhookEndpointChanges,
  WebhookEndpointInput,
  WebhookEndpointPage,
  WebhookEndpointStore,
} from './webhooks/endpoint-store.ts';
export { WEBHOOK_DELIVERY_STATUSES } from './webhooks/endpoint-store.ts';
export type { EndpointWorkers, EndpointWorkersDeps, WebhookPoster } from './webhooks/endpoint-workers.ts';
export { createEndpointWorkers } from './webhooks/endpoint-workers.ts';
export type { WebhookFanoutDeps } from './webhooks/fanout-actor.ts';
export { WEBHOOK_FANOUT_KIND, webhookFanoutActorKind } from './webhooks/fanout-actor.ts';
export { createPostgresFanoutStore } from './webhooks/fanout-store.postgres.ts';
export type { FanoutEvent, FanoutStore } from './webhooks/fanout-store.ts';
export type { TargetAddressClass, TargetAddressVerdict } from './webhooks/target-address.ts';
export { classifyTargetAddress, targetAddressVerdict } from './webhooks/target-address.ts';
export type {
  HostLookup,
  ResolvedAddress,
  TargetGuard,
  TargetGuardOptions,
  UrlCheck,
} from './webhooks/target-guard.ts';
export { createTargetGuard, TargetRefusedError } from './webhooks/target-guard.ts';
export type { WebhookEventName } from './webhooks/webhook-events.ts';
export {
  isWebhookEventName,
  WEBHOOK_EVENT_NAMES,
  webhookEventName,
  webhookPayload,
} from './webhooks/webhook-events.ts';
export type { AttemptResult, WebhookRequester, WebhookRequesterOptions } from './webhooks/webhook-request.ts';
export { createWebhookRequester } from './webhooks/webhook-request.ts';
export type { WebhookSignatureHeaders } from './webhooks/webhook-signature.ts';
export {
  mintWebhookSecret,
  signWebhook,
  WEBHOOK_SECRET_PURPOSE,
  webhookSecretKey,
} from './webhooks/webhook-signature.ts';
export {
  TEST_EVENT_LINK,
  TEST_EVENT_REASON,
  TEST_EVENT_RECIPIENT,
  testWebhookEvent,
} from './webhooks/webhook-test-event.ts';
export type { WebhookDeliveryRecord, WebhookWakePublisher } from './webhooks/webhook-wake.ts';
export { createWebhookWakePublisher, webhookDeliveryCodec } from './webhooks/webhook-wake.ts';
