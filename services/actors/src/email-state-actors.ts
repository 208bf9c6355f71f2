// The mail part of the actors role: the email-state actor kind on `mail.events` (status and
// last event of each email, suppressions from hard bounces and complaints).
import type { Logger } from '@lattice/core';
import { TOPIC_CATALOG } from '@lattice/kafka';
import { createEmailStateActorKind, type MailEventRecord, mailEventCodec } from '@lattice/mail';
import type { Knex } from 'knex';
import type { Registry } from 'prom-client';
import type { ActorKindRegistration } from './actors-role.ts';

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
  };
}
