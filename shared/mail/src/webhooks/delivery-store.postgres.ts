// DeliveryStore over PostgreSQL: each method is one statement, so an attempt costs one read (the
// head, joined with its endpoint) and one write (the outcome, with the endpoint's count).
import type { Knex } from 'knex';
import { AUTO_DISABLE_AFTER_FAILURES } from './delivery-logic.ts';
import type { DeliveryHead, DeliveryStore, RecordedAttempt } from './delivery-store.ts';

interface HeadRow {
  endpoint_id: string;
  url: string;
  enabled: boolean;
  deleted_at: Date | null;
  secret_sealed: string;
  id: string | null;
  seq: string | null;
  event_type: string;
  payload: string;
  attempts: number;
  max_attempts: number;
  next_attempt_at: Date | null;
}

export function createPostgresDeliveryStore(db: Knex): DeliveryStore {
  return {
    async head(endpointId): Promise<DeliveryHead | null> {
      const { rows } = await db.raw<{ rows: HeadRow[] }>(
        `select e.id as endpoint_id, e.url, e.enabled, e.deleted_at, e.secret_sealed,
                d.id, d.seq, d.event_type, d.payload, d.attempts, d.max_attempts, d.next_attempt_at
           from mail_webhook_endpoints e
           join lateral (
             select id, seq, event_type, payload, attempts, max_attempts, next_attempt_at
               from mail_webhook_deliveries
              where endpoint_id = e.id and status = 'pending'
              order by seq
              limit 1
           ) d on true
          where e.id = ?`,
        [endpointId],
      );
      const r = rows[0];
      if (!r || r.id === null) return null;
      return {
        delivery: {
          id: r.id,
          seq: Number(r.seq),
          eventType: r.event_type,
          payload: r.payload,
          attempts: r.attempts,
          maxAttempts: r.max_attempts,
          nextAttemptAtMs: r.next_attempt_at?.getTime() ?? 0,
        },
        endpoint: {
          id: r.endpoint_id,
          url: r.url,
          live: r.enabled && r.deleted_at === null,
          secretSealed: r.secret_sealed,
        },
      };
    },

    async failWithoutRequest(endpointId, nowMs) {
      const { rowCount } = await db.raw<{ rowCount: number }>(
        `update mail_webhook_deliveries d
            set status = 'failed', next_attempt_at = null,
                last_error = case when e.deleted_at is not null then 'endpoint deleted' else 'endpoint disabled' end
           from mail_webhook_endpoints e
          where d.endpoint_id = ? and d.status = 'pending' and d.next_attempt_at <= ?
            and e.id = d.endpoint_id and (not e.enabled or e.deleted_at is not null)`,
        [endpointId, new Date(nowMs)],
      );
      return rowCount ?? 0;
    },

    async recordAttempt({ deliveryId, endpointId, seenAttempts, attemptedAtMs, decision }) {
      const { rows } = await db.raw<{ rows: Array<{ recorded: boolean; disabled: string | null }> }>(
        `with d as (
           update mail_webhook_deliveries
              set attempts = attempts + 1, status = :status, next_attempt_at = :next,
                  last_attempt_at = :at, response_status = :responseStatus, last_error = :lastError
            where id = :deliveryId and status = 'pending' and attempts = :seen
           returning id
         ), before as (
           select enabled from mail_webhook_endpoints where id = :endpointId
         ), e as (
           update mail_webhook_endpoints
              set consecutive_failures = case :effect
                    when 'reset' then 0
                    when 'failed_for_good' then consecutive_failures + 1
                    else consecutive_failures end,
                  enabled = case
                    when :effect = 'gone' then false
                    when :effect = 'failed_for_good' and consecutive_failures + 1 >= :threshold then false
                    else enabled end,
                  disabled_reason = case
                    when enabled and :effect = 'gone' then 'gone'
                    when enabled and :effect = 'failed_for_good' and consecutive_failures + 1 >= :threshold
                      then 'failures'
                    else disabled_reason end
            where id = :endpointId and exists (select 1 from d)
              and (:effect in ('failed_for_good', 'gone') or (:effect = 'reset' and consecutive_failures <> 0))
           returning (case when not enabled and (select enabled from before) then disabled_reason end) as disabled
         )
         select exists (select 1 from d) as recorded,
                (select disabled from e) as disabled`,
        {
          status: decision.status,
          next: decision.nextAttemptAtMs === null ? null : new Date(decision.nextAttemptAtMs),
          at: new Date(attemptedAtMs),
          responseStatus: decision.responseStatus,
          lastError: decision.lastError,
          deliveryId,
          seen: seenAttempts,
          effect: decision.endpoint,
          threshold: AUTO_DISABLE_AFTER_FAILURES,
          endpointId,
        },
      );
      const row = rows[0]!;
      return {
        recorded: row.recorded,
        disabledEndpoint: (row.disabled as RecordedAttempt['disabledEndpoint']) ?? null,
      };
    },

    async endpointsDue(nowMs, limit, productIds) {
      // Only each endpoint's oldest pending delivery decides: the ones held back behind it keep
      // their recording time and would make a waiting endpoint look due at every sweep.
      const { rows } = await db.raw<{ rows: Array<{ endpoint_id: string }> }>(
        `select endpoint_id from (
           select distinct on (endpoint_id) endpoint_id, next_attempt_at
             from mail_webhook_deliveries
            where status = 'pending' ${productIds ? 'and product_id = any(?)' : ''}
            order by endpoint_id, seq
         ) head
         where next_attempt_at <= ?
         order by next_attempt_at
         limit ?`,
        productIds ? [[...productIds], new Date(nowMs), limit] : [new Date(nowMs), limit],
      );
      return rows.map((r) => r.endpoint_id);
    },
  };
}
