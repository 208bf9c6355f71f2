// The email-state actor kind on `mail.events`: one actor per email id (the record key). For each
// batch of an email's records it decides every event with the pure logic, then commits the
// status, last event, recorded events, suppressions and the applied Kafka position in one fenced
// transaction. A replay (a record at or before the stored position) is skipped by the host, and
// an event id recorded already is dropped by the logic, so nothing is applied twice; a stale
// owner's commit fails and the host reloads the actor.
// Records that apply to nothing are counted and acknowledged, never retried: those keyed
// `recipient:<address>` (matched to no email; their webhook fan-out is another kind's work) and
// those whose email has no row (the accept path inserts the row before any event of it is
// produced, so a missing row means a foreign or deleted email).
import { isUuid, type Logger, RetryableError, TerminalError } from '@lattice/core';
import type { Actor, ActorKind, ActorRecord, AppliedPosition } from '@lattice/kafka';
import { isDataError } from '@lattice/store';
import type { Knex } from 'knex';
import type { Registry } from 'prom-client';
import type { MailEventRecord } from '../events/mail-event.ts';
import type { EmailState } from './email-state.ts';
import { applyMailEvent, type EmailEventDropReason, mailEventProblem } from './email-state-logic.ts';
import {
  type EmailStateDropReason,
  type EmailStateMetrics,
  emailStateMetrics,
} from './email-state-metrics.ts';
import { createPostgresEmailStateStore } from './email-state-store.postgres.ts';
import {
  EmailStateFencedError,
  type EmailStateStore,
  type EmailStateSuppression,
} from './email-state-store.ts';

export const EMAIL_STATE_ACTOR_KIND = 'email-state';
const UNMATCHED_PREFIX = 'recipient:';

export interface EmailStateActorDeps {
  store: EmailStateStore;
  logger: Logger;
  metrics: EmailStateMetrics;
}

export function emailStateActorKind(deps: EmailStateActorDeps): ActorKind<MailEventRecord> {
  const log = deps.logger.child({ component: 'email-state-actor' });

  /** An actor that applies nothing: every record is counted under `reason` and acknowledged. */
  function inert(key: string, reason: EmailStateDropReason): Actor<MailEventRecord> {
    return {
      applied: () => null,
      async handle(records) {
        deps.metrics.dropped(reason, records.length);
        // Ids only: a recipient address is personal data and stays out of the logs. Unmatched
        // events are routine (bounces of mail we never sent); events of a missing email are not.
        const eventIds = records.map((r) => r.value.event_id);
        if (reason === 'unmatched') log.debug({ reason, eventIds }, 'mail events matched to no email');
        else log.warn({ reason, emailId: key, eventIds }, 'mail events of an email with no row dropped');
      },
    };
  }

  return {
    name: EMAIL_STATE_ACTOR_KIND,
    async load(key): Promise<Actor<MailEventRecord>> {
      if (key.startsWith(UNMATCHED_PREFIX)) return inert(key, 'unmatched');
      if (!isUuid(key)) throw new TerminalError(`not a mail event key: ${JSON.stringify(key.slice(0, 100))}`);
      const stored = await deps.store.load(key);
      if (!stored) return inert(key, 'unknown_email');
      let state: EmailState = stored.state;
      // What the row holds (the commit's fence), and what this actor has applied: they differ
      // after records that changed nothing, which need no write.
      let persisted: AppliedPosition | null = stored.applied;
      let applied: AppliedPosition | null = persisted;

      return {
        applied: () => applied,
        async handle(records: ActorRecord<MailEventRecord>[]) {
          let next = state;
          const events: MailEventRecord[] = [];
          const suppressions: EmailStateSuppression[] = [];
          const drops: Array<{ eventId: string; reason: EmailEventDropReason }> = [];
          for (const r of records) {
            if (r.value.email_id !== key)
              throw new TerminalError('the record names another email than its key');
            const problem = mailEventProblem(r.value);
            if (problem !== null) throw new TerminalError(problem);
            const decision = applyMailEvent(next, r.value);
            next = decision.state;
            for (const e of decision.effects) {
              if (e.type === 'record_event') events.push(e.event);
              else if (e.type === 'suppress') {
                suppressions.push({ address: e.address, reason: e.reason, emailId: e.emailId });
              } else drops.push({ eventId: e.eventId, reason: e.reason });
            }
          }
          const last = records[records.length - 1]!;
          const position: AppliedPosition = { partition: last.partition, offset: last.offset };
          if (next !== state) {
            try {
              await deps.store.commit({
                emailId: key,
                expected: persisted,
                state: next,
                applied: position,
                events,
                suppressions,
              });
            } catch (err) {
              // Values the database refuses (SQLSTATE class 22) fail the same way every time: the
              // host dead-letters the batch's records one by one instead of stalling the partition.
              if (isDataError(err))
                throw new TerminalError('the database refuses this event’s data', { cause: err });
              if (!(err instanceof EmailStateFencedError)) throw err;
              log.warn({ emailId: key, partition: last.partition }, err.message);
              throw new RetryableError(err.message, 0, { cause: err });
            }
            persisted = position;
          }
          state = next;
          applied = position;
          // Counted once the batch is durable, so a retried batch is not counted twice.
          for (const d of drops) deps.metrics.dropped(d.reason);
          if (drops.length > 0) log.debug({ emailId: key, drops }, 'mail events dropped');
        },
      };
    },
  };
}

export interface CreateEmailStateActorKindOptions {
  db: Knex;
  logger: Logger;
  /** Where the drop counter is registered. */
  registry: Registry;
}

/** The email-state actor kind on PostgreSQL. */
export function createEmailStateActorKind(
  opts: CreateEmailStateActorKindOptions,
): ActorKind<MailEventRecord> {
  return emailStateActorKind({
    store: createPostgresEmailStateStore(opts.db),
    logger: opts.logger,
    metrics: emailStateMetrics(opts.registry),
  });
}
