// FanoutStore over PostgreSQL: one read of the products' live endpoints, one statement that
// inserts the deliveries in event order (so `seq` follows it) and returns what is still pending.
import { nameBasedUuid } from '@lattice/core';
import type { Knex } from 'knex';
import type { FanoutStore } from './fanout-store.ts';
import { webhookEventName } from './webhook-events.ts';
import type { WebhookDeliveryRecord } from './webhook-wake.ts';

/**
 * The endpoint's creation time is the database's clock and the event's recording time a producer's:
 * an endpoint made up to this long after an event still gets it, so a small skew never drops an
 * event accepted after the endpoint's answer (decisions.md), at the price of rarely delivering one
 * from just before.
 */
const CLOCK_SKEW_MS = 1_000;

interface EndpointRow {
  id: string;
  product_id: string;
  events: string[];
  created_at: Date;
}

interface DeliveryRow {
  id: string;
  endpoint_id: string;
  product_id: string;
  event_type: string;
  seq: string;
  created_at: Date;
}

export function createPostgresFanoutStore(db: Knex): FanoutStore {
  return {
    async record(events) {
      if (events.length === 0) return [];
      const productIds = [...new Set(events.map((e) => e.event.product_id))];
      const endpoints: EndpointRow[] = await db('mail_webhook_endpoints')
        .select('id', 'product_id', 'events', 'created_at')
        .whereIn('product_id', productIds)
        .where('enabled', true)
        .whereNull('deleted_at')
        .orderBy([{ column: 'created_at' }, { column: 'id' }]);
      const rows: Array<Record<string, unknown>> = [];
      const ids: string[] = [];
      for (const { event, payload, recordedAtMs } of events) {
        const name = webhookEventName(event.type);
        for (const e of endpoints) {
          if (e.product_id !== event.product_id || !e.events.includes(name)) continue;
          if (e.created_at.getTime() > recordedAtMs + CLOCK_SKEW_MS) continue;
          const id = nameBasedUuid(event.event_id, e.id);
          ids.push(id);
          rows.push({
            ord: rows.length,
            id,
            endpoint_id: e.id,
            product_id: event.product_id,
            event_id: event.event_id,
            event_type: name,
            payload,
          });
        }
      }
      if (rows.length === 0) return [];
      // The rows travel as one jsonb value: no text of theirs is ever read as SQL or as a knex
      // placeholder, and any number of them fits one statement. Inserted in `ord` order, so `seq`
      // follows the events' order; the second part cannot see the first's rows (one snapshot), so
      // together each pending delivery comes once.
      const { rows: pending } = await db.raw<{ rows: DeliveryRow[] }>(
        `with ins as (
           insert into mail_webhook_deliveries (id, endpoint_id, product_id, event_id, event_type, payload, next_attempt_at)
           select id, endpoint_id, product_id, event_id, event_type, payload, now()
             from jsonb_to_recordset(?::jsonb)
               as r(ord int, id uuid, endpoint_id uuid, product_id uuid, event_id uuid, event_type text, payload text)
            order by ord
           on conflict (id) do nothing
           returning id, endpoint_id, product_id, event_type, seq, created_at
         )
         select * from ins
         union all
         select id, endpoint_id, product_id, event_type, seq, created_at from mail_webhook_deliveries
          where id = any(?::uuid[]) and status = 'pending'
         order by seq`,
        [JSON.stringify(rows), ids],
      );
      return pending.map(
        (r): WebhookDeliveryRecord => ({
          delivery_id: r.id,
          endpoint_id: r.endpoint_id,
          product_id: r.product_id,
          event_type: r.event_type,
          seq: Number(r.seq),
          recorded_at_ms: r.created_at.getTime(),
        }),
      );
    },
  };
}
