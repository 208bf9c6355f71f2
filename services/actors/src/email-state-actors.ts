// The mail part of the actors role: the email-state actor kind on `mail.events` (status and
// last event of each email, suppressions from hard bounces and complaints).
import type { Logger } from '@lattice/core';
import { TOPIC_CATALOG } from '@lattice/kafka';
import { createEmailStateActorKind, type MailEventRecord, mailEventCodec } from '@lattice/mail';
import type { Knex } from 'knex';
import type { Registry } from 'prom-client';
import type { ActorKindRegistration } from './actors-role.ts';

/**
 * How often the consumers of `mail.events` whose replays are harmless (email state, webhook
 * fan-out) commit the offsets they applied: one commit a second instead of one per event, at the
 * price of replaying up to a second of events after a crash or a rebalance.
 */
export const MAIL_EVENTS_COMMIT_INTERVAL_MS = 1_000;

export interface EmailStateRegistrationDeps {
  db: Knex;
  logger: Logger;
  /** Where the count of events applied to nothing is registered. */
  registry: Registry;
}

export function emailStateRegistration(
  deps: EmailStateRegistrationDeps,
): ActorKindRegistration<MailEventRecord> {
  return {
    topic: TOPIC_CATALOG.mailEvents.name,
    codec: mailEventCodec(),
    kind: createEmailStateActorKind({ db: deps.db, logger: deps.logger, registry: deps.registry }),
    // A replay is skipped by the email's stored position (and its event ids), so its offsets are
    // committed together once a second rather than one commit per event.
    commitIntervalMs: MAIL_EVENTS_COMMIT_INTERVAL_MS,
  };
}
