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
