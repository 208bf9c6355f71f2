// Webhook endpoints and their deliveries in PostgreSQL (mail_webhook_endpoints,
// mail_webhook_deliveries). The signing secret is sealed with the platform keyring (purpose
// WEBHOOK_SECRET_PURPOSE): the endpoint actor opens it for every attempt, so it cannot be a hash.
// No read here selects it. Operator actions lock the endpoint row (FOR SHARE) while they change
// deliveries, so a concurrent disable or delete is ordered before or after them, never between
// the check and the change.
import { isUuid, nameBasedUuid, newId, type SecretKeyring, sealSecret } from '@lattice/core';
import type { DbExecutor } from '@lattice/store';
import type { Knex } from 'knex';
import { ATTEMPTS_PER_ROUND } from './delivery-logic.ts';
import type {
  WebhookDelivery,
  WebhookDeliveryStatus,
  WebhookDisabledReason,
  WebhookEndpoint,
  WebhookEndpointStore,
} from './endpoint-store.ts';
import { type WebhookEventName, webhookPayload } from './webhook-events.ts';
import { mintWebhookSecret, WEBHOOK_SECRET_PURPOSE } from './webhook-signature.ts';
import { testWebhookEvent } from './webhook-test-event.ts';

const ENDPOINTS = 'mail_webhook_endpoints';
const DELIVERIES = 'mail_webhook_deliveries';
/** Everything but `secret_sealed` and `deleted_at`. */
const ENDPOINT_COLUMNS = [
  'id',
  'product_id',
  'url',
  'events',
  'description',
  'enabled',
  'consecutive_failures',
  'disabled_reason',
  'created_at',
  'updated_at',
];
/** Everything but the payload, which only the endpoint actor sends. */
const DELIVERY_COLUMNS = [
  'id',
  'seq',
  'endpoint_id',
  'product_id',
  'event_id',
  'event_type',
  'status',
  'attempts',
  'max_attempts',
  'next_attempt_at',
  'last_attempt_at',
  'response_status',
  'last_error',
  'created_at',
];

interface EndpointRow {
  id: string;
  product_id: string;
  url: string;
  events: WebhookEventName[];
  description: string | null;
  enabled: boolean;
  consecutive_failures: number;
  disabled_reason: WebhookDisabledReason | null;
  created_at: Date;
  updated_at: Date;
}

interface DeliveryRow {
  id: string;
  /** bigint: pg answers it as a string. */
  seq: string;
  endpoint_id: string;
  product_id: string;
  event_id: string;
  event_type: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  max_attempts: number;
  next_attempt_at: Date | null;
  last_attempt_at: Date | null;
  response_status: number | null;
  last_error: string | null;
  created_at: Date;
}

function toEndpoint(r: EndpointRow): WebhookEndpoint {
  return {
    id: r.id,
    productId: r.product_id,
    url: r.url,
    events: r.events,
    description: r.description,
    enabled: r.enabled,
    consecutiveFailures: r.consecutive_failures,
    disabledReason: r.disabled_reason,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function toDelivery(r: DeliveryRow): WebhookDelivery {
  return {
    id: r.id,
    seq: Number(r.seq),
    endpointId: r.endpoint_id,
    productId: r.product_id,
    eventId: r.event_id,
    eventType: r.event_type,
    status: r.status,
    attempts: r.attempts,
    maxAttempts: r.max_attempts,
    nextAttemptAt: r.next_attempt_at,
    lastAttemptAt: r.last_attempt_at,
    responseStatus: r.response_status,
    lastError: r.last_error,
    createdAt: r.created_at,
  };
}

export interface PostgresWebhookEndpointStoreOptions {
  /** Seals the endpoints' signing secrets (LATTICE_SECRET_KEYS). */
  keyring: SecretKeyring;
}

export function createPostgresWebhookEndpointStore(
  db: DbExecutor,
  opts: PostgresWebhookEndpointStoreOptions,
): WebhookEndpointStore {
  const live = (q: DbExecutor, productId: string, id: string) =>
    q(ENDPOINTS).where({ id, product_id: productId }).whereNull('deleted_at');

  /** Pending again with a new round of attempts; attempts, last_error and response_status stay. */
  const backToPending = (q: DbExecutor) => ({
    status: 'pending',
    max_attempts: q.raw('attempts + ?', [ATTEMPTS_PER_ROUND]),
    next_attempt_at: q.fn.now(),
  });

  /** The live endpoint locked against a concurrent disable or delete until the transaction ends. */
  async function lockedEndpoint(trx: Knex.Transaction, productId: string, id: string) {
    return (await live(trx, productId, id).forShare().first('enabled', 'events')) as
      | Pick<EndpointRow, 'enabled' | 'events'>
      | undefined;
  }

  return {
    async create(productId, input) {
      const secret = mintWebhookSecret();
      const [row] = (await db(ENDPOINTS)
        .insert({
          id: newId(),
          product_id: productId,
          url: input.url,
          events: [...input.events],
          description: input.description,
          enabled: input.enabled,
          disabled_reason: input.enabled ? null : 'manual',
          secret_sealed: sealSecret(opts.keyring, WEBHOOK_SECRET_PURPOSE, secret),
        })
        .returning(ENDPOINT_COLUMNS)) as EndpointRow[];
      return { endpoint: toEndpoint(row!), secret };
    },

    async list(productId, page) {
      const q = db(ENDPOINTS)
        .where({ product_id: productId })
        .whereNull('deleted_at')
        .orderBy([
          { column: 'created_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .limit(page.limit)
        .select(ENDPOINT_COLUMNS);
      if (page.afterId !== undefined) {
        if (!isUuid(page.afterId)) return [];
        // The cursor's own row may be deleted since: its position still holds (deleted rows stay).
        q.whereRaw(
          `(created_at, id) < (select created_at, id from ${ENDPOINTS} where id = ? and product_id = ?)`,
          [page.afterId, productId],
        );
      }
      return ((await q) as EndpointRow[]).map(toEndpoint);
    },

    async get(productId, id) {
      if (!isUuid(id)) return undefined;
      const row = (await live(db, productId, id).first(ENDPOINT_COLUMNS)) as EndpointRow | undefined;
      return row && toEndpoint(row);
    },

    async update(productId, id, changes) {
      if (!isUuid(id)) return undefined;
      const set: Record<string, unknown> = { updated_at: db.fn.now() };
      if (changes.url !== undefined) set.url = changes.url;
      if (changes.events !== undefined) set.events = [...changes.events];
      if (changes.description !== undefined) set.description = changes.description;
      if (changes.enabled === true) {
        // Re-enabling starts the failure count afresh (decisions.md); staying enabled keeps it.
        set.enabled = true;
        set.consecutive_failures = db.raw('case when enabled then consecutive_failures else 0 end');
        set.disabled_reason = null;
      } else if (changes.enabled === false) {
        // An endpoint disabled already (by failures, by a 410) keeps the reason it has.
        set.enabled = false;
        set.disabled_reason = db.raw("case when enabled then 'manual' else disabled_reason end");
      }
      const [row] = (await live(db, productId, id).update(set).returning(ENDPOINT_COLUMNS)) as EndpointRow[];
      return row && toEndpoint(row);
    },

    async delete(productId, id) {
      if (!isUuid(id)) return false;
      const n = await live(db, productId, id).update({
        deleted_at: db.fn.now(),
        enabled: false,
        updated_at: db.fn.now(),
      });
      return n > 0;
    },

    async listDeliveries(productId, endpointId, page) {
      if (!isUuid(endpointId) || !(await live(db, productId, endpointId).first('id'))) return undefined;
      const q = db(DELIVERIES)
        .where({ product_id: productId, endpoint_id: endpointId })
        .orderBy('seq', 'desc')
        .limit(page.limit)
        .select(DELIVERY_COLUMNS);
      if (page.afterDeliveryId !== undefined) {
        const at = isUuid(page.afterDeliveryId)
          ? ((await db(DELIVERIES)
              .where({ id: page.afterDeliveryId, endpoint_id: endpointId, product_id: productId })
              .first('seq')) as Pick<DeliveryRow, 'seq'> | undefined)
          : undefined;
        if (!at) return 'unknown_cursor';
        q.where('seq', '<', at.seq);
      }
      return ((await q) as DeliveryRow[]).map(toDelivery);
    },

    async retryDelivery(productId, endpointId, deliveryId) {
      if (!isUuid(endpointId)) return { outcome: 'endpoint_not_found' };
      return db.transaction(async (trx) => {
        const endpoint = await lockedEndpoint(trx, productId, endpointId);
        if (!endpoint) return { outcome: 'endpoint_not_found' } as const;
        const found = isUuid(deliveryId)
          ? ((await trx(DELIVERIES)
              .where({ id: deliveryId, endpoint_id: endpointId, product_id: productId })
              .forUpdate()
              .first('status')) as Pick<DeliveryRow, 'status'> | undefined)
          : undefined;
        if (!found) return { outcome: 'delivery_not_found' } as const;
        if (!endpoint.enabled) return { outcome: 'endpoint_disabled' } as const;
        if (found.status !== 'failed')
          return { outcome: 'delivery_not_failed', status: found.status } as const;
        const [row] = (await trx(DELIVERIES)
          .where({ id: deliveryId })
          .update(backToPending(trx))
          .returning(DELIVERY_COLUMNS)) as DeliveryRow[];
        return { outcome: 'retried', delivery: toDelivery(row!) } as const;
      });
    },

    async recover(productId, endpointId, range) {
      if (!isUuid(endpointId)) return { outcome: 'endpoint_not_found' };
      return db.transaction(async (trx) => {
        const endpoint = await lockedEndpoint(trx, productId, endpointId);
        if (!endpoint) return { outcome: 'endpoint_not_found' } as const;
        if (!endpoint.enabled) return { outcome: 'endpoint_disabled' } as const;
        const rows = (await trx(DELIVERIES)
          .where({ endpoint_id: endpointId, product_id: productId, status: 'failed' })
          .whereBetween('created_at', [range.since, range.until])
          .update(backToPending(trx))
          .returning(DELIVERY_COLUMNS)) as DeliveryRow[];
        const deliveries = rows.map(toDelivery).sort((a, b) => a.seq - b.seq);
        return { outcome: 'recovered', deliveries } as const;
      });
    },

    async insertTestDelivery(productId, endpointId, test) {
      if (!isUuid(endpointId)) return { outcome: 'endpoint_not_found' };
      return db.transaction(async (trx) => {
        const endpoint = await lockedEndpoint(trx, productId, endpointId);
        if (!endpoint) return { outcome: 'endpoint_not_found' } as const;
        if (!endpoint.enabled) return { outcome: 'endpoint_disabled' } as const;
        const eventType = test.eventType ?? endpoint.events[0]!;
        const eventId = newId();
        const [row] = (await trx(DELIVERIES)
          .insert({
            // The fan-out's id rule: one delivery per event and endpoint.
            id: nameBasedUuid(eventId, endpointId),
            endpoint_id: endpointId,
            product_id: productId,
            event_id: eventId,
            event_type: eventType,
            payload: webhookPayload(testWebhookEvent(productId, eventType, eventId, test.nowMs)),
            status: 'pending',
            next_attempt_at: trx.fn.now(),
          })
          .returning(DELIVERY_COLUMNS)) as DeliveryRow[];
        return { outcome: 'recorded', delivery: toDelivery(row!) } as const;
      });
    },
  };
}
