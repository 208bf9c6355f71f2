// Accepting a send (`POST /emails` on the edge, `mail_email_send`): every refusal happens before
// anything is written, then the email is written and durably queued, then 202 {id}.
//   1 body checks                       400 validation_error (schema, then send-request.ts)
//   2 `from` on a verified domain       422 domain_not_verified (a locked mail key: its domain)
//   3 Idempotency-Key                   the first id again, or 409 (send-idempotency.ts)
//   4 send rate, per product            429 with Retry-After and RateLimit headers
//   5 suppression                       a suppressed recipient still gets 202, status suppressed
//   6 one transaction: key claim + email row (without a key: the row's INSERT alone); then the
//     record on mail.outbound (acks=all), or the `suppressed` event; a produce that fails
//     withdraws the row and the claim: 503
// A crash between 6's commit and its produce leaves a queued row without its record: the orphan
// sweep (sender jobs) produces it, so an accepted email is never left queued for good.

import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { ApiError, type Clock, type Environment, errorMessage, type Logger } from '@lattice/core';
import { HTTP_ERRORS, idempotencyKeyProblem } from '@lattice/http';
import type { GroupCommitPublisher } from '@lattice/kafka';
import {
  type FixedWindowPolicy,
  type RateLimiter,
  type RateLimitResult,
  rateLimitHeaders,
} from '@lattice/redis';
import type { Db } from '@lattice/store';
import { type MailEventPublisher, mailEventKey } from '../events/mail-event.ts';
import { MAIL_ERRORS } from '../mail-errors.ts';
import type { MailStages } from '../mail-stages.ts';
import { messageIdFor } from '../return-path.ts';
import type { SuppressionStore } from '../suppression/suppression-store.ts';
import { derivedEventId, type MailOutboundRecord } from './outbound-record.ts';
import {
  claimKey,
  completeKey,
  type IdempotencyKeyRef,
  idempotencyKeyRef,
  replayedEmailId,
} from './send-idempotency.ts';
import { checkSendBody, type SendEmailBody } from './send-request.ts';

/** A verified sending domain, as the accept path needs it. */
export interface SendingDomain {
  id: string;
  name: string;
  openTracking: boolean;
  clickTracking: boolean;
}

export interface SendingDomains {
  /** The product's domain of this name when it is verified; undefined otherwise. */
  verifiedDomainByName(productId: string, name: string): Promise<SendingDomain | undefined>;
}

export interface EmailAcceptorDeps {
  db: Db;
  domains: SendingDomains;
  suppressions: SuppressionStore;
  /** Per product, fixed 1 s windows (sendRatePolicy). */
  sendRate: RateLimiter;
  outbound: GroupCommitPublisher<MailOutboundRecord>;
  events: MailEventPublisher;
  clock: Clock;
  logger: Logger;
  /** Observes `accepted_produced`: from the call to Kafka's acknowledgement of the record. */
  stages?: MailStages;
}

export interface SendInput {
  productId: string;
  environment: Environment;
  body: SendEmailBody;
  idempotencyKey: string | undefined;
  /** A mail key's domain lock (its domain id); null or absent: any verified domain. */
  domainLock?: string | null;
  /** The HTTP request's id, sent with the record the send produces (and on to its events). */
  requestId?: string | undefined;
}

export interface SendAnswer {
  status: 202;
  body: { id: string };
  headers: Record<string, string>;
  /** An Idempotency-Key repeat answered with the first id. */
  replayed: boolean;
}

export interface EmailAcceptor {
  send(input: SendInput): Promise<SendAnswer>;
}

export function sendRatePolicy(perSecond: number): FixedWindowPolicy {
  return { name: 'mail-send', limit: perSecond, windowMs: 1000 };
}

/** The purpose of the event id of a suppression found at accept (the sweep may produce it again). */
export const SUPPRESSED_AT_ACCEPT = 'suppressed-at-accept';

export function createEmailAcceptor(deps: EmailAcceptorDeps): EmailAcceptor {
  const { db, clock } = deps;
  const log = deps.logger.child({ component: 'email-acceptor' });
  const policy = deps.sendRate.policy;
  const headersOf = (result: RateLimitResult) => rateLimitHeaders([{ policy, result }]);

  /**
   * Deletes an email whose record may not be in Kafka, with its claim; false when the sender took
   * it already (a produce that timed out can still land), which makes the send a success.
   */
  async function withdraw(
    productId: string,
    emailId: string,
    key: IdempotencyKeyRef | null,
  ): Promise<boolean> {
    return db.transaction(async (trx) => {
      const deleted = await trx('mail_emails')
        .where({ id: emailId })
        .whereIn('send_state', ['pending', 'done'])
        .where('send_attempts', 0)
        .delete();
      if (deleted === 0) return false;
      if (key)
        await trx('mail_idempotency_keys').where({ product_id: productId, key_hash: key.keyHash }).delete();
      return true;
    });
  }

  /** A failure of PostgreSQL or Kafka is the service's trouble: 503, logged, never a 500. */
  async function available<T>(what: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      if (err instanceof ApiError) throw err;
      log.warn({ err: errorMessage(err) }, `${what} failed`);
      throw MAIL_ERRORS.sendUnavailable();
    }
  }

  return {
    async send(input) {
      const acceptedAt = performance.now();
      const { productId } = input;
      if (input.idempotencyKey !== undefined) {
        const problem = idempotencyKeyProblem(input.idempotencyKey);
        if (problem) throw HTTP_ERRORS.validation([{ path: 'headers.idempotency-key', message: problem }]);
      }
      const request = checkSendBody(input.body);

      // A repeat answers what the first answered, whatever changed since (a domain that turned
      // pending, the rate): it sends nothing.
      const key =
        input.idempotencyKey === undefined ? null : idempotencyKeyRef(input.idempotencyKey, input.body);
      if (key) {
        const first = await available('reading an Idempotency-Key', () =>
          replayedEmailId(db, productId, key, clock.nowMs()),
        );
        if (first !== undefined) return { status: 202, body: { id: first }, headers: {}, replayed: true };
      }

      const domain = await available('reading the sending domain', () =>
        deps.domains.verifiedDomainByName(productId, request.from.domain),
      );
      const locked = input.domainLock !== undefined && input.domainLock !== null;
      if (!domain || (locked && domain.id !== input.domainLock))
        throw MAIL_ERRORS.domainNotVerified(request.from.domain, locked);

      const rate = await deps.sendRate.consume(productId);
      if (!rate.allowed) throw MAIL_ERRORS.sendRateExceeded(headersOf(rate));

      const suppressed = await available('reading the suppression list', () =>
        deps.suppressions.isSuppressed(productId, request.to.normalized),
      );
      const id = randomUUID();
      const nowMs = clock.nowMs();
      const row = {
        id,
        product_id: productId,
        environment: input.environment,
        domain_id: domain.id,
        from_header: input.body.from,
        to_header: input.body.to,
        to_address: request.to.normalized,
        subject: request.subject,
        html: request.html,
        text: request.text,
        reply_to: input.body.reply_to ?? null,
        headers: JSON.stringify(request.headers),
        tags: JSON.stringify(request.tags),
        track_opens: domain.openTracking,
        track_clicks: domain.clickTracking,
        message_id: messageIdFor(id, domain.name),
        status: suppressed ? 'suppressed' : 'queued',
        send_state: suppressed ? 'done' : 'pending',
        created_at: new Date(nowMs),
      };
      // With an Idempotency-Key, the claim and the row commit together. Without one the row is
      // a single INSERT, atomic by itself: no BEGIN and COMMIT round trips around it.
      const claimed = await available('storing the email', async () => {
        if (!key) {
          await db('mail_emails').insert(row);
          return true;
        }
        return db.transaction(async (trx) => {
          if (!(await claimKey(trx, productId, key, id, nowMs))) return false;
          await trx('mail_emails').insert(row);
          return true;
        });
      });
      if (!claimed) {
        // Another request claimed the key between our read and our write: answer as it does.
        const first = await replayedEmailId(db, productId, key!, clock.nowMs());
        if (first !== undefined) return { status: 202, body: { id: first }, headers: {}, replayed: true };
        throw MAIL_ERRORS.idempotencyKeyInUse();
      }

      try {
        if (suppressed) {
          const event = {
            event_id: derivedEventId(id, SUPPRESSED_AT_ACCEPT),
            product_id: productId,
            email_id: id,
            type: 'suppressed' as const,
            recipient: request.to.normalized,
            bounce_kind: null,
            reason: 'The recipient is on the suppression list',
            provider_message_id: null,
            link: null,
            occurred_at_ms: nowMs,
          };
          await deps.events.publish(event, input.requestId);
          log.debug({ key: mailEventKey(event) }, 'suppressed at accept');
        } else {
          await deps.outbound.publish(
            id,
            { email_id: id, product_id: productId, attempt: 1, accepted_at_ms: nowMs },
            input.requestId,
          );
          deps.stages?.observe('accepted_produced', performance.now() - acceptedAt);
        }
      } catch (err) {
        log.warn({ err: errorMessage(err), emailId: id }, 'queueing an accepted email failed');
        const withdrawn = await withdraw(productId, id, key).catch((withdrawErr: unknown) => {
          // Left for the orphan sweep, which hands it over: the answer stays a 503, and the
          // client's retry with its Idempotency-Key finds the email.
          log.error({ err: errorMessage(withdrawErr), emailId: id }, 'withdrawing an unqueued email failed');
          return true;
        });
        if (withdrawn) throw MAIL_ERRORS.sendUnavailable();
        // The record landed after all and the sender took the email: it is accepted.
      }
      if (key) {
        // The claim's lease covers a completion that fails: a repeat within it is told to wait,
        // after it the claim answers as completed.
        await completeKey(db, productId, key).catch((err: unknown) =>
          log.warn({ err: errorMessage(err), emailId: id }, 'completing an Idempotency-Key failed'),
        );
      }
      return { status: 202, body: { id }, headers: headersOf(rate), replayed: false };
    },
  };
}
