// Server-side publishing for both HTTP surfaces (decisions.md "Public edge routes": body
// {channel, data, name?}, optional Idempotency-Key, 202 {id, channel} once durably in Kafka).
// The body arrives validated against the route's schema (schemas/http realtime-message-publish,
// by the same compiled validator on both surfaces). In this order, so that refusals cost
// nothing they should not:
//   1 the Idempotency-Key header (400 naming it; a body that fails its schema is refused before,
//     so that answer names the body's fields only)
//   2 the namespace is registered (404)
//   3 serialized `data` over 262 144 bytes needs payload storage for the product (503, for good)
//   4 Idempotency-Key: a duplicate answers the first publish's {id, channel} and counts nothing
//   5 the product's publish quota (429 with Retry-After and RateLimit headers)
//   6 data over the inline cap is stored, and the command carries its `ref`
//   7 the Publish command is produced (acks=all); failure or timeout → 503
import { performance } from 'node:perf_hooks';
import { ApiError, type Clock, type Environment, type Logger, newId, systemClock } from '@lattice/core';
import { HTTP_ERRORS } from '@lattice/http';
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
import type { PublishQuotaLimiter } from './publish-quota.ts';
import { REALTIME_ERRORS } from './realtime-errors.ts';

/** Content type given to stored payloads: they are the JSON text of `data`. */
export const STORED_PAYLOAD_CONTENT_TYPE = 'application/json';

export interface PublishRequest {
  channel: string;
  /** The serialized `data` (JSON text). */
  dataJson: string;
  name: string | null;
}

export interface PublishAnswer {
  status: 202;
  body: { id: string; channel: string };
  /** RateLimit-Policy / RateLimit of the publish quota (absent on a replayed duplicate). */
  headers: Record<string, string>;
  /** True when an earlier publish with the same Idempotency-Key is answered again. */
  replayed: boolean;
}

export interface MessagePublisher {
  /**
   * `body` as its schema validated it (without the management API's `environment`);
   * `idempotencyKey` is the header's value when present. Throws ApiError for every refusal.
   */
  publish(input: {
    productId: string;
    environment: Environment;
    body: PublishMessageBody;
    idempotencyKey?: string | undefined;
    /** Who published (a key id, a member id), kept on the command for audits. */
    publisher?: string | null;
    /** The HTTP request's id, sent with the command as its `lattice-request-id` header. */
    requestId?: string | undefined;
  }): Promise<PublishAnswer>;
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
}

export function createMessagePublisher(deps: MessagePublisherDeps): MessagePublisher {
  const clock = deps.clock ?? systemClock;
  const log = deps.logger.child({ component: 'realtime-publish' });
  const stages: StageTimer<'realtime'> = deps.stages ?? NO_STAGE_TIMER;
  return {
    async publish({ productId, environment, body, idempotencyKey, publisher, requestId }) {
      const acceptedAt = performance.now();
      const request = validPublish(body, idempotencyKey);

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
          return { status: 202, body: { id: claim.id, channel: claim.channel }, headers: {}, replayed: true };
        }
        messageId = claim.id;
      }
      const owner = claim?.kind === 'owner' ? claim : null;
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
        const id: ChannelId = { productId, environment, channel: request.channel };
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
        return { status: 202, body: { id: messageId, channel: request.channel }, headers, replayed: false };
      } catch (err) {
        await owner?.release().catch(() => undefined);
        throw err;
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
