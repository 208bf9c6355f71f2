// Server-side publishing for both HTTP surfaces (docs/realtime-http.md "Publishing": body
// {channel, data, name?}, optional Idempotency-Key, 202 {id, channel} once durably in Kafka;
// with `Prefer: return=representation`, 201 {id, channel, offset, epoch} once applied, within
// the wait). The body arrives validated against the route's schema (schemas/http
// realtime-message-publish, by the same compiled validator on both surfaces). In this order, so
// that refusals cost nothing they should not:
//   1 the Idempotency-Key header (400 naming it; a body that fails its schema is refused before,
//     so that answer names the body's fields only)
//   2 the namespace is registered (404)
//   3 serialized `data` over 262 144 bytes needs payload storage for the product (503, for good)
//   4 Idempotency-Key: a duplicate answers what the first publish answered and counts nothing
//   5 the product's publish quota (429 with Retry-After and RateLimit headers)
//   6 data over the inline cap is stored, and the command carries its `ref`
//   7 the Publish command is produced (acks=all); failure or timeout → 503
//   8 with the preference: wait for the channel actor's fan-out of the message (watched from
//     before step 7) until the wait runs out, then 201 with its place, or the usual 202
import { performance } from 'node:perf_hooks';
import {
  ApiError,
  type Clock,
  type Environment,
  type Logger,
  newId,
  type Scheduler,
  systemClock,
  systemScheduler,
} from '@lattice/core';
import { HTTP_ERRORS, PREFERENCE_APPLIED_HEADER } from '@lattice/http';
import { NO_STAGE_TIMER, type StageTimer } from '@lattice/kafka';
import { rateLimitHeaders } from '@lattice/redis';
import { publishCommandRecord } from '../channel/channel-command.ts';
import type { ChannelId } from '../channel/channel-id.ts';
import type { NamespacePolicyLookup } from '../channel/policy-cache.ts';
import { namespaceOf } from '../names.ts';
import {
  INLINE_PAYLOAD_MAX_BYTES,
  type PayloadRef,
  type PayloadStoreRegistry,
} from '../payload/payload-store.ts';
import type { ChannelCommandPublisher } from './command-publisher.ts';
import { type IdempotencyStore, idempotencyKeyProblem } from './idempotency.ts';
import { publishWaitMsOf, RETURN_REPRESENTATION } from './publish-preference.ts';
import type { PublishQuotaLimiter } from './publish-quota.ts';
import {
  type AppliedPlace,
  type Deadline,
  deadlineIn,
  type PublishWaiter,
  startWatch,
} from './publish-waiter.ts';
import { REALTIME_ERRORS } from './realtime-errors.ts';

/** Content type given to stored payloads: they are the JSON text of `data`. */
export const STORED_PAYLOAD_CONTENT_TYPE = 'application/json';

export interface PublishRequest {
  channel: string;
  /** The serialized `data` (JSON text). */
  dataJson: string;
  name: string | null;
}

export type PublishAnswer = {
  /**
   * RateLimit-Policy / RateLimit of the publish quota (absent on a replayed duplicate), and
   * Preference-Applied on a 201.
   */
  headers: Record<string, string>;
  /** True when an earlier publish with the same Idempotency-Key is answered again. */
  replayed: boolean;
} & (
  | { status: 202; body: { id: string; channel: string } }
  /** Asked with `Prefer: return=representation`, and applied within the wait. */
  | { status: 201; body: { id: string; channel: string; offset: number; epoch: string } }
);

export interface PublishInput {
  productId: string;
  environment: Environment;
  body: PublishMessageBody;
  idempotencyKey?: string | undefined;
  /** The Prefer header(s), when sent: `return=representation` waits for the offset. */
  prefer?: string | readonly string[] | undefined;
  /** Who published (a key id, a member id), kept on the command for audits. */
  publisher?: string | null;
  /** The HTTP request's id, sent with the command as its `lattice-request-id` header. */
  requestId?: string | undefined;
}

export interface MessagePublisher {
  /**
   * `body` as its schema validated it (without the management API's `environment`);
   * `idempotencyKey` is the header's value when present. Throws ApiError for every refusal.
   */
  publish(input: PublishInput): Promise<PublishAnswer>;
}

/** The publish body as its schema admits it. */
export interface PublishMessageBody {
  channel: string;
  data: unknown;
  name?: string;
}

/** The publish request, or the 400 naming the Idempotency-Key header. */
export function validPublish(body: PublishMessageBody, idempotencyKey: string | undefined): PublishRequest {
  if (idempotencyKey !== undefined) {
    const problem = idempotencyKeyProblem(idempotencyKey);
    if (problem) throw HTTP_ERRORS.validation([{ path: 'headers.idempotency-key', message: problem }]);
  }
  return { channel: body.channel, dataJson: JSON.stringify(body.data), name: body.name ?? null };
}

export interface MessagePublisherDeps {
  policies: NamespacePolicyLookup;
  payloads: PayloadStoreRegistry;
  quota: PublishQuotaLimiter;
  idempotency: IdempotencyStore;
  commands: ChannelCommandPublisher;
  logger: Logger;
  clock?: Clock;
  /** Observes `accepted_produced`: from the call to Kafka's acknowledgement (docs/architecture.md "Where the time goes"). */
  stages?: StageTimer<'realtime'>;
  /** Watches channels for applied messages; without it, `Prefer` changes nothing. */
  waits?: PublishWaiter;
  /** The waits' timers. Default systemScheduler. */
  scheduler?: Scheduler;
}

/** The 201 answer of a publish applied at `place`. */
function representation(
  body: { id: string; channel: string },
  place: AppliedPlace,
  headers: Record<string, string>,
  replayed: boolean,
): PublishAnswer {
  return {
    status: 201,
    body: { ...body, offset: place.offset, epoch: place.epoch },
    headers: { ...headers, [PREFERENCE_APPLIED_HEADER]: RETURN_REPRESENTATION },
    replayed,
  };
}

export function createMessagePublisher(deps: MessagePublisherDeps): MessagePublisher {
  const clock = deps.clock ?? systemClock;
  const log = deps.logger.child({ component: 'realtime-publish' });
  const stages: StageTimer<'realtime'> = deps.stages ?? NO_STAGE_TIMER;
  const scheduler = deps.scheduler ?? systemScheduler;

  /** Steps 1 to 8 of the file comment; `deadline` is the wait's when the preference asked for one. */
  async function publishMessage(input: PublishInput, deadline: Deadline | null): Promise<PublishAnswer> {
    const { productId, environment, idempotencyKey, publisher, requestId } = input;
    const acceptedAt = performance.now();
    const request = validPublish(input.body, idempotencyKey);
    const namespace = namespaceOf(request.channel);
    const policy = await deps.policies.get(productId, namespace).catch((err: unknown) => {
      log.error({ err }, 'reading a namespace policy failed');
      throw REALTIME_ERRORS.publishUnavailable();
    });
    if (policy === null) throw REALTIME_ERRORS.namespaceNotFound(namespace);
    const dataBytes = Buffer.byteLength(request.dataJson, 'utf8');
    const store = dataBytes > INLINE_PAYLOAD_MAX_BYTES ? deps.payloads.forProduct(productId) : null;
    if (dataBytes > INLINE_PAYLOAD_MAX_BYTES && store === null)
      throw REALTIME_ERRORS.payloadStorageNotProvisioned();

    let messageId = newId();
    let claim: Awaited<ReturnType<IdempotencyStore['claim']>> | null = null;
    if (idempotencyKey !== undefined) {
      try {
        claim = await deps.idempotency.claim({
          productId,
          environment,
          key: idempotencyKey,
          channel: request.channel,
          newMessageId: messageId,
        });
      } catch (err) {
        if (err instanceof ApiError) throw err;
        // Without Redis the key cannot be honoured; publishing anyway could publish twice.
        log.warn({ err }, 'Idempotency-Key store unavailable');
        throw REALTIME_ERRORS.publishUnavailable();
      }
      if (claim.kind === 'replay') {
        // What the first publish answered, as far as it is known: 201 when it was answered
        // with its place, else 202. A repeat never waits.
        const first = { id: claim.id, channel: claim.channel };
        if (claim.applied) return representation(first, claim.applied, {}, true);
        return { status: 202, body: first, headers: {}, replayed: true };
      }
      messageId = claim.id;
    }
    const owner = claim?.kind === 'owner' ? claim : null;
    const id: ChannelId = { productId, environment, channel: request.channel };
    // Watched from before the command is produced, so its fan-out cannot come by unseen; set
    // up while the quota is counted.
    const watch = deadline && deps.waits ? startWatch(deps.waits, id, messageId, deadline, log) : null;
    try {
      const outcome = await deps.quota.consume(productId, environment);
      const headers = rateLimitHeaders([outcome]);
      if (!outcome.result.allowed) throw REALTIME_ERRORS.quotaExceeded(headers);

      let data: { json: string } | { ref: PayloadRef } = { json: request.dataJson };
      if (store !== null) {
        try {
          data = {
            ref: await store.put(
              productId,
              Buffer.from(request.dataJson, 'utf8'),
              STORED_PAYLOAD_CONTENT_TYPE,
            ),
          };
        } catch (err) {
          log.error({ err, productId }, 'storing a payload failed');
          throw REALTIME_ERRORS.payloadStorageUnavailable();
        }
      }
      const record = publishCommandRecord({
        id,
        commandId: newId(),
        messageId,
        name: request.name,
        data,
        publisher: publisher ?? null,
        idempotencyKey: idempotencyKey ?? null,
        issuedAtMs: clock.nowMs(),
      });
      const watching = watch ? await watch.ready : null;
      try {
        await deps.commands.publish(id, record, requestId);
      } catch (err) {
        log.warn({ err, productId, channel: request.channel }, 'a publish was not acknowledged by Kafka');
        throw REALTIME_ERRORS.publishUnavailable();
      }
      stages.observe('accepted_produced', performance.now() - acceptedAt);
      await owner?.complete().catch((err: unknown) => {
        // Published; only a later duplicate could now publish again, under the same id.
        log.warn({ err }, 'could not record a completed Idempotency-Key');
      });
      const accepted = { id: messageId, channel: request.channel };
      // Durably accepted from here on: whatever the wait brings, the answer is 201 or 202.
      const place =
        watching && deadline
          ? await Promise.race([watching.applied, deadline.expired.then(() => null)])
          : null;
      if (place === null) return { status: 202, body: accepted, headers, replayed: false };
      await owner?.recordApplied(place).catch((err: unknown) => {
        // A later duplicate answers 202 instead of this 201: still the same message.
        log.warn({ err }, 'could not record where an Idempotency-Key publish was applied');
      });
      return representation(accepted, place, headers, false);
    } catch (err) {
      await owner?.release().catch(() => undefined);
      throw err;
    } finally {
      watch?.end();
    }
  }

  return {
    async publish(input) {
      const waitMs = deps.waits ? publishWaitMsOf(input.prefer) : null;
      if (waitMs === null) return publishMessage(input, null);
      // The wait counts from the request (RFC 7240 "wait"), so it also bounds the watch's setup.
      const deadline = deadlineIn(scheduler, waitMs);
      try {
        return await publishMessage(input, deadline);
      } finally {
        deadline.clear();
      }
    },
  };
}

/** A deployment that configured no producer: requests are still validated, then refused (503). */
export const UNCONFIGURED_MESSAGE_PUBLISHER: MessagePublisher = {
  async publish({ body, idempotencyKey }) {
    validPublish(body, idempotencyKey);
    throw REALTIME_ERRORS.publishUnavailable('Publishing is not configured on this deployment');
  },
};
