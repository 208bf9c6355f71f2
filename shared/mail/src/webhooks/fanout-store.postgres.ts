// FanoutStore over PostgreSQL: one read of the products' live endpoints, one statement that
// inserts the deliveries in event order (so `seq` follows it) and returns what is still pending.
import { nameBasedUuid } from '@lattice/core';
import type { Knex } from 'knex';
import type { FanoutStore } from './fanout-store.ts';
import { webhookEventName } from './webhook-events.ts';
import type { WebhookDeliveryRecord } from './webhook-wake.ts';

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
          if (e.created_at.getTime() > recordedAtMs) continue;
          const id = nameBasedUuid(event.event_id, e.id);
          ids.push(id);
          rows.push({
            id,
            endpoint_id: e.id,
            product_id: event.product_id,
            event_id: event.event_id,
            event_type: name,
            payload,
            next_attempt_at: db.fn.now(),
          });
        }
      }
      if (rows.length === 0) return [];
      const insert = db('mail_webhook_deliveries')
        .insert(rows)
        .onConflict(['event_id', 'endpoint_id'])
        .ignore()
        .returning(['id', 'endpoint_id', 'product_id', 'event_type', 'seq', 'created_at']);
      // The second part cannot see the first's rows (one snapshot): together, each pending once.
      const { rows: pending } = await db.raw<{ rows: DeliveryRow[] }>(
        `with ins as (${insert.toQuery()})
         select * from ins
         union all
         select id, endpoint_id, product_id, event_type, seq, created_at from mail_webhook_deliveries
          where id = any(?) and status = 'pending'
         order by seq`,
        [ids],
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
