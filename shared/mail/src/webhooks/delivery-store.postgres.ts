// DeliveryStore over PostgreSQL: each method is one statement. A loop reads a window of its
// endpoint's pending deliveries at once, and the outcomes of many endpoints' attempts share one
// write (with their endpoints' counts), which also answers each endpoint's current state.
import type { Knex } from 'knex';
import { AUTO_DISABLE_AFTER_FAILURES } from './delivery-logic.ts';
import type { DeliveryStore, DeliveryWindow, RecordedAttempt } from './delivery-store.ts';

interface WindowRow {
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

interface OutcomeRow {
  recorded: boolean;
  disabled: 'gone' | 'failures' | null;
  endpoint_id: string | null;
  url: string | null;
  live: boolean | null;
  secret_sealed: string | null;
}

export function createPostgresDeliveryStore(db: Knex): DeliveryStore {
  return {
    async window(endpointId, limit): Promise<DeliveryWindow | null> {
      const { rows } = await db.raw<{ rows: WindowRow[] }>(
        `select e.id as endpoint_id, e.url, e.enabled, e.deleted_at, e.secret_sealed,
                d.id, d.seq, d.event_type, d.payload, d.attempts, d.max_attempts, d.next_attempt_at
           from mail_webhook_endpoints e
           join lateral (
             select id, seq, event_type, payload, attempts, max_attempts, next_attempt_at
               from mail_webhook_deliveries
              where endpoint_id = e.id and status = 'pending'
              order by seq
              limit ?
           ) d on true
          where e.id = ?
          order by d.seq`,
        [limit, endpointId],
      );
      const first = rows[0];
      if (!first) return null;
      return {
        endpoint: {
          id: first.endpoint_id,
          url: first.url,
          live: first.enabled && first.deleted_at === null,
          secretSealed: first.secret_sealed,
        },
        deliveries: rows.map((r) => ({
          id: r.id!,
          seq: Number(r.seq),
          eventType: r.event_type,
          payload: r.payload,
          attempts: r.attempts,
          maxAttempts: r.max_attempts,
          nextAttemptAtMs: r.next_attempt_at?.getTime() ?? 0,
        })),
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

    async recordAttempts(outcomes) {
      if (outcomes.length === 0) return [];
      // One statement for the whole group: the outcomes travel as one jsonb value; an endpoint
      // has one attempt in flight at a time, so it appears at most once. The endpoint state
      // answered is the one the next attempt goes by (the updated row where this write changed
      // it, else the row as it stood).
      const { rows } = await db.raw<{ rows: OutcomeRow[] }>(
        `with v as (
           select * from jsonb_to_recordset(?::jsonb)
             as v(ord int, delivery_id uuid, endpoint_id uuid, seen int, status text, next_at timestamptz,
                  at timestamptz, response_status int, last_error text, effect text)
         ), d as (
           update mail_webhook_deliveries d
              set attempts = d.attempts + 1, status = v.status, next_attempt_at = v.next_at,
                  last_attempt_at = v.at, response_status = v.response_status, last_error = v.last_error
             from v
            where d.id = v.delivery_id and d.status = 'pending' and d.attempts = v.seen
           returning d.id, v.endpoint_id, v.effect
         ), e as (
           update mail_webhook_endpoints e
              set consecutive_failures = case d.effect
                    when 'reset' then 0
                    when 'failed_for_good' then e.consecutive_failures + 1
                    else e.consecutive_failures end,
                  enabled = case
                    when d.effect = 'gone' then false
                    when d.effect = 'failed_for_good' and e.consecutive_failures + 1 >= ? then false
                    else e.enabled end,
                  disabled_reason = case
                    when e.enabled and d.effect = 'gone' then 'gone'
                    when e.enabled and d.effect = 'failed_for_good' and e.consecutive_failures + 1 >= ?
                      then 'failures'
                    else e.disabled_reason end
             from d
            where e.id = d.endpoint_id
              and (d.effect in ('failed_for_good', 'gone') or (d.effect = 'reset' and e.consecutive_failures <> 0))
           returning e.id, e.enabled, e.disabled_reason
         )
         select d.id is not null as recorded,
                case when e.id is not null and not e.enabled and cur.enabled then e.disabled_reason end as disabled,
                cur.id as endpoint_id, cur.url, cur.secret_sealed,
                coalesce(e.enabled, cur.enabled) and cur.deleted_at is null as live
           from v
           left join d on d.id = v.delivery_id
           left join e on e.id = v.endpoint_id
           left join mail_webhook_endpoints cur on cur.id = v.endpoint_id
          order by v.ord`,
        [
          JSON.stringify(
            outcomes.map((o, ord) => ({
              ord,
              delivery_id: o.deliveryId,
              endpoint_id: o.endpointId,
              seen: o.seenAttempts,
              status: o.decision.status,
              next_at: o.decision.nextAttemptAtMs === null ? null : new Date(o.decision.nextAttemptAtMs),
              at: new Date(o.attemptedAtMs),
              response_status: o.decision.responseStatus,
              last_error: o.decision.lastError,
              effect: o.decision.endpoint,
            })),
          ),
          AUTO_DISABLE_AFTER_FAILURES,
          AUTO_DISABLE_AFTER_FAILURES,
        ],
      );
      return rows.map(
        (r): RecordedAttempt => ({
          recorded: r.recorded,
          disabledEndpoint: r.disabled,
          endpoint:
            r.endpoint_id === null
              ? null
              : { id: r.endpoint_id, url: r.url!, live: r.live === true, secretSealed: r.secret_sealed! },
        }),
      );
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
